"""Write the published scoring vectors, docs/vectors/scoring-vectors.json: inputs with
the answers the game modules give, for a client that scores offline to check its
port against (docs/vectors/README.md). ``make vectors`` runs it; a test holds the
committed file equal to what this writes, and another plays every table through the
HTTP API and gets the same answers."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from app.games import GAMES
from app.games.base import GameRuleError, SettingConflict
from app.games.decided import CorrectionRefused, check_correction
from app.games.decided import winner as decided_winner
from app.games.settlement import settle
from app.schemas import RoundBody

PATH = Path(__file__).resolve().parents[1] / "docs" / "vectors" / "scoring-vectors.json"
VERSION = 1
ROUNDS: TypeAdapter[Any] = TypeAdapter(RoundBody)


@dataclass(frozen=True)
class Table:
    """A match of one game from its creation: each step a round entered
    (``{"round": body}``) or the host's change of settings (``{"settings": {...}}``)."""

    game: str
    about: str
    players: int
    steps: list[dict[str, Any]]
    settings: dict[str, Any] = field(default_factory=dict)


def hand(
    declarer: int, contract: str, trumps: str, tricks: list[int], **more: Any
) -> dict[str, Any]:
    body = {"type": "asszorti_hand", "declarer": declarer, "contract": contract}
    return {"round": {**body, "trumps": trumps, "tricks": tricks, **more}}


def deal(*tricks: int) -> dict[str, Any]:
    return {"round": {"type": "alkort_tricks", "tricks": list(tricks)}}


def own(*points: int) -> dict[str, Any]:
    return {"round": {"type": "own_points", "points": list(points)}}


TABLES: list[Table] = [
    # --- Asszorti: the worked examples of the rules, one hand each ---------------------
    Table(
        "asszorti",
        "contract 1 in diamonds, 7 tricks: 6 + 3 from each",
        3,
        [hand(1, "1", "diamonds", [2, 7, 2])],
    ),
    Table(
        "asszorti",
        "contract 2 with trumps, the declarer takes 5: the opponents win",
        3,
        [hand(0, "2", "hearts", [5, 3, 3])],
    ),
    Table(
        "asszorti",
        "contract 1, no trumps, 7 tricks, szubkontra: (12 + 6) x 8",
        3,
        [hand(2, "1", "none", [2, 2, 7], kontra="szubkontra")],
    ),
    Table(
        "asszorti",
        "6:5:0 with rekontra: 4 x 4 - 4",
        3,
        [hand(0, "2", "spades", [6, 5, 0], kontra="rekontra")],
    ),
    Table(
        "asszorti", "6:5:0 without doubling: worth nothing", 3, [hand(0, "2", "spades", [6, 0, 5])]
    ),
    Table("asszorti", "6:4:1 is no exception: V", 3, [hand(0, "2", "spades", [6, 4, 1])]),
    Table(
        "asszorti",
        "contract 3 with trumps, all 11 tricks: 2 + 5 x 1",
        3,
        [hand(1, "3", "clubs", [0, 11, 0])],
    ),
    Table(
        "asszorti",
        "hand, no trumps, no tricks: the opponents hold 11",
        3,
        [hand(0, "hand", "none", [0, 5, 6])],
    ),
    Table(
        "asszorti",
        "6 tricks (6:3:2) and an idegen arrivazs won at kontra: 2 + 32",
        3,
        [
            hand(
                0,
                "3",
                "hearts",
                [6, 3, 2],
                arrivazs={"won": True, "idegen": True, "kontra": "kontra"},
            )
        ],
    ),
    # --- Asszorti: the kontra ladder, and debts carried on the sheet ------------------
    Table(
        "asszorti",
        "the kontra ladder, each level once; the sheet carries the debts",
        3,
        [
            hand(0, "2", "hearts", [7, 2, 2], kontra="none"),
            hand(1, "2", "hearts", [2, 7, 2], kontra="kontra"),
            hand(2, "2", "hearts", [2, 2, 7], kontra="rekontra"),
            hand(0, "2", "hearts", [7, 2, 2], kontra="szubkontra"),
            hand(1, "2", "hearts", [2, 7, 2], kontra="hirskontra"),
            hand(2, "2", "hearts", [2, 2, 7], kontra="mordkontra"),
        ],
    ),
    Table(
        "asszorti",
        "a win pays the debt first: part of it, then all of it",
        3,
        [
            hand(1, "1", "diamonds", [2, 7, 2]),
            {"round": {"type": "asszorti_amounts", "amounts": [8, -4, -4]}},
            {"round": {"type": "asszorti_amounts", "amounts": [18, -9, -9]}},
            {"round": {"type": "asszorti_amounts", "amounts": [0, 0, 0]}},
        ],
    ),
    # --- Asszorti: the arrivazs --------------------------------------------------------
    Table(
        "asszorti",
        "arrivazs: won with trumps (8), won without (16), lost at rekontra "
        "while the basic game is won, lost with the basic game",
        3,
        [
            hand(0, "2", "hearts", [7, 2, 2], arrivazs={"won": True}),
            hand(1, "2", "none", [2, 7, 2], arrivazs={"won": True}),
            hand(2, "2", "clubs", [2, 2, 7], arrivazs={"won": False, "kontra": "rekontra"}),
            hand(0, "1", "spades", [4, 4, 3], kontra="kontra", arrivazs={"won": False}),
        ],
    ),
    # --- Asszorti: planned deals, and what is rejected --------------------------------
    Table(
        "asszorti",
        "two planned deals decide the match; three reopen it; one is refused",
        3,
        [
            hand(0, "3", "hearts", [6, 3, 2]),
            hand(1, "3", "hearts", [3, 6, 2]),
            {"settings": {"planned_deals": 3}},
            {"settings": {"planned_deals": 1}},
            hand(2, "3", "hearts", [2, 3, 6]),
            {"settings": {"planned_deals": None}},
        ],
        settings={"planned_deals": 2},
    ),
    Table(
        "asszorti",
        "rejected hands: tricks not adding up to 11, idegen without trumps, "
        "an arrivazs won with 2 tricks, lost with 11, kontra at a table without it, "
        "amounts of no hand's shape",
        3,
        [
            hand(0, "2", "hearts", [6, 3, 3]),
            hand(0, "2", "none", [7, 2, 2], arrivazs={"won": True, "idegen": True}),
            hand(0, "2", "hearts", [2, 5, 4], arrivazs={"won": True}),
            hand(0, "2", "hearts", [11, 0, 0], arrivazs={"won": False}),
            hand(0, "2", "hearts", [7, 2, 2], kontra="kontra"),
            {"round": {"type": "asszorti_amounts", "amounts": [10, -4, -6]}},
            {"round": {"type": "asszorti_amounts", "amounts": [146, -73, -73]}},
            hand(0, "2", "hearts", [7, 2, 2]),
        ],
        settings={"kontra": False},
    ),
    # --- Alkort -----------------------------------------------------------------------
    Table(
        "alkort",
        "the worked deals: a stroke of 6, a plain win, a muk after six tricks, "
        "a stroke of 9, a plain win by five alternate tricks; five tricks are rejected",
        4,
        [
            deal(0, 0, 0, 0, 0, 0, 1, 1, 0),
            deal(0, 0, 0, 0, 1, 0, 0, 0, 0),
            deal(0, 0, 0, 0, 0, 1),
            deal(*[1] * 9),
            deal(1, 0, 1, 0, 1, 0, 1, 0, 1),
            deal(0, 0, 0, 0, 0),
        ],
        settings={"target": 100},
    ),
    Table(
        "alkort",
        "stopping early: once the first run is broken and a team has 5; a run "
        "still unbroken, or no team at 5, is rejected; tricks past the settling one "
        "change nothing; more than nine, or a 2, are rejected",
        4,
        [
            deal(0, 0, 0, 0, 0, 0, 1),
            deal(1, 0, 1, 0, 1, 0, 1, 1),
            deal(0, 0, 0, 0, 0, 0),
            deal(0, 1, 0, 1, 0, 1, 1),
            deal(0, 0, 0, 0, 0, 1, 1, 1, 1),
            deal(*[0] * 10),
            deal(0, 2, 0, 0, 0, 0),
            {"round": {"type": "alkort_points", "team": 1, "points": 7}},
            {"round": {"type": "alkort_points", "team": 0, "points": 4}},
        ],
        settings={"target": 100, "first_dealer": 2},
    ),
    Table(
        "alkort",
        "to the target: decided the deal a team reaches 11",
        4,
        [deal(*[0] * 9), deal(1, 1, 1, 1, 1, 0), deal(0, 0, 0, 0, 0, 0, 1)],
    ),
    Table(
        "alkort",
        "the target moved: 9 to 2, lowered to 9 decides it, raised to 12 "
        "reopens it, lowered to 2 (both teams there) is refused",
        4,
        [
            {"round": {"type": "alkort_points", "team": 0, "points": 9}},
            {"round": {"type": "alkort_points", "team": 1, "points": 1}},
            {"round": {"type": "alkort_points", "team": 1, "points": 1}},
            {"settings": {"target": 9}},
            {"settings": {"target": 12}},
            {"settings": {"target": 2}},
        ],
    ),
    Table(
        "alkort",
        "the first to reach the target wins, in deal order: target lowered to 7 "
        "(team 0 wins), then deal 2 corrected so that team 1 reached 7 first, "
        "after deal 2; a correction deciding the match after deal 1 is refused",
        4,
        [
            {"round": {"type": "alkort_points", "team": 1, "points": 6}},
            {"round": {"type": "alkort_points", "team": 0, "points": 9}},
            {"round": {"type": "alkort_points", "team": 0, "points": 9}},
            {"settings": {"target": 7}},
            {"correct": 2, "round": {"type": "alkort_points", "team": 1, "points": 1}},
            {"correct": 1, "round": {"type": "alkort_points", "team": 1, "points": 7}},
        ],
        settings={"target": 21},
    ),
    # --- Own table ----------------------------------------------------------------------
    Table(
        "own_table",
        "zero-sum in two teams: per-team points, a settlement; a round not "
        "summing to 0 is rejected",
        4,
        [own(12, -12), own(-4, 4), own(3, 2)],
        settings={"teams": 2, "zero_sum": True},
    ),
    Table(
        "own_table",
        "Hearts: lowest wins; the target moved onto the totals decides it, the lowest total wins",
        3,
        [own(60, 0, 10), own(0, 70, 10), own(0, 0, 20), {"settings": {"target": 50}}],
        settings={"lowest_wins": True, "negatives": False, "target": 1000},
    ),
    Table(
        "own_table",
        "no negatives: a negative point is rejected; the highest to the target wins",
        2,
        [own(5, 3), own(-1, 2), own(6, 2)],
        settings={"negatives": False, "target": 10},
    ),
    Table(
        "own_table",
        "planned rounds end in a tie: decided, no winner",
        3,
        [own(3, 1, 3), own(1, 2, 1)],
        settings={"planned_rounds": 2},
    ),
]

# Nets to settle, each with why it is here. Seats (or teams) in order, summing to 0.
SETTLEMENTS: list[tuple[str, list[int]]] = [
    ("nobody owes anything", [0, 0, 0]),
    ("one debtor, one creditor, a seat at zero", [4, -4, 0]),
    ("an Asszorti hand: the declarer won 9 from each", [-9, 18, -9]),
    ("one debtor pays two creditors", [10, 5, -15]),
    (
        "five seats: three payments, not four (two groups: seats 0, 2, 3 and 1, 4)",
        [-4, -3, 2, 2, 3],
    ),
    (
        "eight seats: the -70 and the +70 settle each other, six payments, not seven",
        [-153, -73, -70, 108, 194, -109, 70, 33],
    ),
    ("two equal splits: the lowest seat's smallest group first", [-2, 2, 1, 1, -2]),
    ("pairs of equal size: the group of the lowest seats first", [-1, 1, 1, -1]),
    (
        "groups of one size: the lexicographically first, (0, 1, 7) before (0, 3, 4)",
        [2, 3, 2, -3, 1, 3, -3, -5],
    ),
    ("four teams: two pairs settle apart", [-5, 5, -3, 3]),
    ("four teams: no pair sums to zero, three payments", [-5, -2, 3, 4]),
    ("six seats in three pairs", [7, -3, -7, 3, 12, -12]),
    (
        "six seats: four payments (the largest debt to the largest credit takes five)",
        [-2, -5, 7, 3, -9, 6],
    ),
    (
        "seven seats: five payments (the largest debt to the largest credit takes six)",
        [-4, 1, 8, 9, 9, -6, -17],
    ),
    ("eight seats that split in four pairs", [-8, 8, -1, 1, -2, 2, -3, 3]),
]


def play(table: Table) -> dict[str, Any]:
    """The table's steps, each with the answer the game modules give: a round's score
    and the sheet after it, or its rejection (the field, as a 422 names it); a change
    of settings and the match after it, or its refusal (the 409's code)."""
    kind = GAMES[table.game]
    settings = kind.settings_model.model_validate(table.settings)
    game = kind.for_table(table.players, settings)
    sheet, count, steps = game.initial_state(), 0, []
    points: list[list[int]] = []
    for step in table.steps:
        if "correct" in step:
            number = step["correct"]
            score = game.score(ROUNDS.validate_python(step["round"]), settings)
            corrected = [*points[: number - 1], list(score.points), *points[number:]]
            new_fold = game.refold(corrected, number, settings)
            try:
                check_correction(game, settings, old_points=points, number=number, new=new_fold)
            except CorrectionRefused:
                steps.append({**step, "refused": "correction_conflict"})
                continue
            points, sheet = corrected, new_fold.last
            scored = {"net": score.net, "points": list(score.points), "breakdown": score.breakdown}
            row = list(new_fold.row[0])
            steps.append({**step, "score": scored, "cells": row, **_sheet(sheet)})
        elif "round" in step:
            try:
                score = game.score(ROUNDS.validate_python(step["round"]), settings)
            except ValidationError as error:
                steps.append({**step, "rejected": ["body", *error.errors()[0]["loc"][1:]]})
                continue
            except GameRuleError as error:
                steps.append({**step, "rejected": ["body", *error.loc]})
                continue
            cells, sheet = game.apply(sheet, score.points)
            points.append(list(score.points))
            count += 1
            scored = {"net": score.net, "points": list(score.points), "breakdown": score.breakdown}
            steps.append({**step, "score": scored, "cells": list(cells), **_sheet(sheet)})
        else:
            new = kind.settings_model.model_validate({**settings.model_dump(), **step["settings"]})
            try:
                game.check_settings_change(settings, new, sheet, count)
            except SettingConflict as error:
                steps.append({**step, "refused": error.code})
                continue
            settings = new
            steps.append(dict(step))
        decided = game.is_decided(sheet, settings, count)
        winner = decided_winner(game, settings, sheet, partial(list, points)) if decided else None
        steps[-1]["status"] = "decided" if decided else "in_progress"
        steps[-1]["winner"] = None if winner is None else _plain(winner)
    return {
        "about": table.about,
        "players": table.players,
        "settings": table.settings,
        "steps": steps,
    }


def _sheet(sheet: Any) -> dict[str, Any]:
    net = list(sheet.net) if sheet.net is not None else None
    return {
        "totals": list(sheet.totals),
        "owed": list(sheet.owed) if sheet.owed is not None else None,
        "net": net,
        "settlement": None if net is None else [p._asdict() for p in settle(net)],
    }


def _plain(winner: Any) -> dict[str, Any]:
    return {"seats": list(winner.seats) if winner.seats is not None else None, "team": winner.team}


def vectors() -> dict[str, Any]:
    """The vectors, as the game modules answer them now."""
    return {
        "version": VERSION,
        "games": {name: [play(table) for table in TABLES if table.game == name] for name in GAMES},
        "settlement": [
            {
                "about": about,
                "net": net,
                "payments": [payment._asdict() for payment in settle(net)],
            }
            for about, net in SETTLEMENTS
        ],
    }


def render() -> str:
    return json.dumps(vectors(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    PATH.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"wrote {PATH}\n")
