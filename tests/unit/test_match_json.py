"""A live event carries the match as GET /v1/matches/{id} answers it: ``match_json``
(the use cases' JSON, built without the API's models) equals ``MatchRead``'s."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from app.games import GAMES
from app.schemas import MATCH_CREATE_MODELS, MatchRead
from app.services.answers import match_data, match_json
from app.services.match_state import MatchState, state_to_json

PLAYERS = {
    "asszorti": ["Anna", "Berta", "Csaba"],
    "alkort": ["Anna", "Bela", "Cili", "Dani"],
    "own_table": ["Anna", "Bela", "Cili", "Dani", "Emma"],
}


def _row(game_name: str, *, ended: bool) -> dict[str, Any]:
    body = MATCH_CREATE_MODELS[game_name].model_validate(
        {"game": game_name, "players": PLAYERS[game_name]}
    )
    game = GAMES[game_name].for_table(len(body.players), body.settings)
    now = datetime(2026, 12, 2, 9, 30, tzinfo=UTC)
    return {
        "id": "0" * 32,
        "game": game_name,
        "status": "ended" if ended else "in_progress",
        "players": list(body.players),
        "team_names": getattr(body, "team_names", None),
        "settings": body.settings.model_dump(mode="json"),
        "sheet": state_to_json(game.initial_state()),
        "round_count": 0,
        "winner": None,
        "version": 3,
        "created_at": now,
        "updated_at": now,
        "ended_at": now if ended else None,
        "ended_by": "host" if ended else None,
        "rematch_id": "1" * 32 if ended else None,
        "rematch_of": "2" * 32,
        "host_seat": 1 if ended else None,
    }


@pytest.mark.parametrize("game_name", sorted(PLAYERS))
@pytest.mark.parametrize("ended", [False, True])
def test_match_json_is_what_get_match_answers(game_name: str, ended: bool) -> None:
    assert set(PLAYERS) == set(GAMES)
    state = MatchState.load(_row(game_name, ended=ended))
    assert match_json(state) == MatchRead.model_validate(match_data(state)).model_dump(mode="json")
