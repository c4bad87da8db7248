"""Write the published scoring vectors, docs/vectors/scoring-vectors.json: inputs with
the answers the game modules give, for a client that scores offline to check its
port against (docs/vectors/README.md). ``make vectors`` runs it; a test holds the
committed file equal to what this writes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from app.games.settlement import settle

PATH = Path(__file__).resolve().parents[1] / "docs" / "vectors" / "scoring-vectors.json"
VERSION = 1

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


def vectors() -> dict[str, Any]:
    """The vectors, as the game modules answer them now."""
    return {
        "version": VERSION,
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
