"""A match's rounds, and the inputs each round number has held."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import ConfigDict, Field

from app.games.asszorti import HAND_EXAMPLE
from app.schemas.common import WHO_DESCRIPTION, Read
from app.schemas.games import Breakdown, RoundBody, RoundType


class RevisionAction(StrEnum):
    """What a round's revision did to it."""

    ENTERED = "entered"
    CORRECTED = "corrected"
    REMOVED = "removed"


_RESULT_EXAMPLE: dict[str, Any] = {
    "net": [-9, 18, -9],
    "cells": [0, 18, 0],
    "totals": [0, 18, 0],
    "owed": [9, 0, 9],
    "breakdown": {
        "game": "asszorti",
        "basic_game": 9,
        "arrivazs": 0,
        "declarer_won": True,
        "manual": False,
    },
}


class RoundResult(Read):
    """What a round did to the sheet."""

    model_config = ConfigDict(json_schema_extra={"examples": [_RESULT_EXAMPLE]})

    net: list[int] | None
    cells: list[int]
    totals: list[int]
    owed: list[int] | None
    breakdown: Breakdown


ROUND_EXAMPLE: dict[str, Any] = {
    "number": 1,
    "type": "asszorti_hand",
    "input": HAND_EXAMPLE,
    "dealer": 0,
    "result": _RESULT_EXAMPLE,
    "entered_by": "seat:1",
    "created_at": "2026-11-29T20:15:00Z",
    "updated_at": "2026-11-29T20:15:00Z",
}


class RoundRead(Read):
    model_config = ConfigDict(json_schema_extra={"examples": [ROUND_EXAMPLE]})
    number: int
    type: RoundType
    input: RoundBody
    dealer: int
    result: RoundResult
    entered_by: str = Field(description=WHO_DESCRIPTION)
    created_at: datetime
    updated_at: datetime


_REVISION_EXAMPLE: dict[str, Any] = {
    "revision": 1,
    "action": "entered",
    "type": "asszorti_amounts",
    "input": {"type": "asszorti_amounts", "amounts": [2, -1, -1]},
    "by": "seat:0",
    "recorded_at": "2026-11-29T20:15:00Z",
}


class RoundRevisionRead(Read):
    """One input a round number held: entered, corrected, or removed (input null)."""

    model_config = ConfigDict(json_schema_extra={"examples": [_REVISION_EXAMPLE]})

    revision: int
    action: RevisionAction
    type: RoundType | None
    input: RoundBody | None
    by: str = Field(description=WHO_DESCRIPTION)
    recorded_at: datetime


class RoundHistory(Read):
    """A page of the inputs a round number has held, oldest first; ``next`` is where
    the following page is."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "number": 1,
                    "items": [_REVISION_EXAMPLE],
                    "next": None,
                }
            ]
        }
    )
    number: int
    items: list[RoundRevisionRead]
    next: str | None = Field(
        None,
        description='The URL of the next page (also sent as a `Link: <...>; rel="next"` '
        "header); null on the last page",
        examples=[
            "/v1/matches/4f1c2a9e0b7d4e6f8a1b2c3d4e5f6a7b/rounds/1/history?after=100&limit=100"
        ],
    )


class RoundList(Read):
    """One page of rounds, in order; ``next`` is where the following page is."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"items": [ROUND_EXAMPLE], "next": None}]}
    )
    items: list[RoundRead]
    next: str | None = Field(
        None,
        description='The URL of the next page (also sent as a `Link: <...>; rel="next"` '
        "header); null on the last page",
        examples=["/v1/matches/4f1c2a9e0b7d4e6f8a1b2c3d4e5f6a7b/rounds?after=100&limit=100"],
    )
