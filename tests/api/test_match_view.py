"""The match as stored at each write (built without validation, app/services/state.py)
is a valid MatchRead, byte for byte what validating and serializing it gives."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from app.schemas import MatchRead
from tests.api.helpers import PLAYERS, Table, amounts

FOUR = ["Anna", "Bela", "Cili", "Dani"]


def _assert_valid(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    validated = MatchRead.model_validate_json(response.content)
    assert validated.model_dump_json().encode() == response.content
    body: dict[str, Any] = response.json()
    return body


def test_asszorti_views_validate_at_every_step(client: TestClient) -> None:
    table = Table(
        client, {"game": "asszorti", "players": PLAYERS, "settings": {"planned_deals": 2}}
    )
    _assert_valid(table.get())
    table.round(amounts(2, -1, -1))
    table.round(amounts(-4, 2, 2))
    decided = _assert_valid(table.get())
    assert decided["status"] == "decided" and decided["winner"] is not None
    assert table.patch({"players": ["Ágnes", "Berta", "Csaba"]}).status_code == 200
    assert table.post("/end").status_code == 200
    ended = _assert_valid(table.get())
    assert ended["status"] == "ended" and ended["ended_by"] == "host"
    assert ended["players"][0]["name"] == "Ágnes"


def test_alkort_views_validate_with_teams_and_a_winner(client: TestClient) -> None:
    table = Table(
        client,
        {
            "game": "alkort",
            "players": FOUR,
            "team_names": ["Us", "Them"],
            "settings": {"target": 6},
        },
    )
    _assert_valid(table.get())
    table.round({"type": "alkort_tricks", "tricks": [0] * 9})
    won = _assert_valid(table.get())
    assert won["teams"][0]["name"] == "Us"
    assert won["winner"] == {"seats": None, "team": 0}
