"""The settlement is part of the API: on the sheet and on the match, for Asszorti."""

from __future__ import annotations

from typing import Any

from tests.api.helpers import Table


def _paid(settlement: list[dict[str, int]], seats: int) -> list[int]:
    balance = [0] * seats
    for payment in settlement:
        balance[payment["payer"]] -= payment["amount"]
        balance[payment["payee"]] += payment["amount"]
    return balance


def test_an_asszorti_sheet_and_match_settle_to_the_nets(table: Table) -> None:
    for amounts in ([18, -9, -9], [-2, 1, 1], [-6, 12, -6]):
        entered = table.post("/rounds", {"type": "asszorti_amounts", "amounts": amounts})
        assert entered.status_code == 201
    ended = table.post("/end").json()
    sheet = table.get("/sheet").json()
    net = [t - o for t, o in zip(ended["totals"], ended["owed"], strict=True)]
    assert sum(net) == 0 and any(net)
    assert _paid(ended["settlement"], 3) == net == sheet["net"]
    assert ended["settlement"] == sheet["settlement"]
    assert len(ended["settlement"]) <= 2


def test_alkort_has_no_settlement(client: Any) -> None:
    alkort = Table(client, {"game": "alkort", "players": ["A", "B", "C", "D"]})
    assert alkort.get().json()["settlement"] is None
    assert alkort.get("/sheet").json()["settlement"] is None
