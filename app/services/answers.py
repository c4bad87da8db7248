"""The match and a round as the API answers them (the MatchRead and RoundRead shapes),
as plain data, from a ``MatchState`` and the fold of its rounds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic_core import to_jsonable_python

from app.games.base import SheetState
from app.games.settlement import settle
from app.services.match_state import MatchState


def match_data(state: MatchState) -> dict[str, Any]:
    """The match as GET /v1/matches/{id} answers it, as plain data in MatchRead's
    field order (timestamps still datetimes)."""
    row, game, sheet = state.row, state.game, state.sheet
    teams = None
    if game.team_count:
        names = row["team_names"] or [None] * game.team_count
        teams = [
            {"team": t, "name": names[t], "seats": list(range(t, game.seat_count, game.team_count))}
            for t in range(game.team_count)
        ]
    winner = row["winner"]
    return {
        "id": row["id"],
        "game": row["game"],
        "status": row["status"],
        "players": [{"seat": i, "name": name} for i, name in enumerate(row["players"])],
        "teams": teams,
        "settings": {"game": row["game"], **state.settings.model_dump()},
        "round_count": state.round_count,
        "next_dealer": state.dealer_of(state.round_count + 1),
        "totals": list(sheet.totals),
        "owed": list(sheet.owed) if sheet.owed is not None else None,
        "net": list(sheet.net) if sheet.net is not None else None,
        "standings": [
            {"rank": s.rank, "seats": list(s.seats), "total": s.total, "team": s.team}
            for s in game.standings(sheet)
        ],
        "winner": (
            {"seats": winner["seats"], "team": winner["team"]} if winner is not None else None
        ),
        "settlement": settlement_of(sheet),
        "version": row["version"],
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
        "ended_at": row["ended_at"],
        "ended_by": row["ended_by"],
        "rematch_id": row["rematch_id"],
        "rematch_of": row["rematch_of"],
        "host_seat": row["host_seat"],
    }


def match_json(state: MatchState) -> dict[str, Any]:
    """``match_data`` as JSON data: what a live event carries, as GET answers it."""
    data: dict[str, Any] = to_jsonable_python(match_data(state))
    return data


def settlement_of(sheet: SheetState) -> list[dict[str, int]] | None:
    """Who pays whom to settle the sheet, for a game with money (one with nets)."""
    if sheet.net is None:
        return None
    return [{"payer": p.payer, "payee": p.payee, "amount": p.amount} for p in settle(sheet.net)]


def round_read(
    game: str, row: Mapping[Any, Any], cells: Sequence[int], sheet: SheetState
) -> dict[str, Any]:
    """A round of a ``game`` match as clients read it (the RoundRead shape): its input,
    its score, and its row of the sheet (``cells`` and the sheet after it, from the fold)."""
    result = row["result"]
    return {
        "number": row["number"],
        "type": row["type"],
        "input": row["input"],
        "dealer": row["dealer"],
        "result": {
            "net": result.get("net"),
            "cells": list(cells),
            "totals": list(sheet.totals),
            "owed": list(sheet.owed) if sheet.owed is not None else None,
            "breakdown": {"game": game, **result["breakdown"]},
        },
        "entered_by": row["entered_by"],
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
    }
