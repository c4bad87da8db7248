"""A whole Asszorti evening through the API, checked against an independent calculation.

The expected figures come from a second, deliberately plain reading of RULES.md
§1 written here, not from the service's own scoring code.
"""

from __future__ import annotations

from typing import Any

from tests.api.helpers import PLAYERS, Table, amounts, hand

LADDER = ["none", "kontra", "rekontra", "szubkontra", "hirskontra", "mordkontra"]
BASE = {"3": 2, "2": 4, "1": 6, "hand": 8}


def expected_net(body: dict[str, Any]) -> list[int]:
    if body["type"] == "asszorti_amounts":
        return list(body["amounts"])
    d = body["declarer"]
    value = BASE[body["contract"]] * (2 if body["trumps"] == "none" else 1)
    mine = body["tricks"][d]
    theirs = [t for s, t in enumerate(body["tricks"]) if s != d]
    winners = mine if mine >= 6 else 11 - mine
    basic = (value + (winners - 6) * (value // 2)) * 2 ** LADDER.index(body.get("kontra", "none"))
    if mine == 6 and sorted(theirs) == [0, 5]:
        basic -= value
    x = basic if mine >= 6 else -basic
    arr = body.get("arrivazs")
    if arr:
        worth = 16 if (arr.get("idegen") or body["trumps"] == "none") else 8
        worth *= 2 ** LADDER.index(arr.get("kontra", "none"))
        x += worth if arr["won"] else -worth
    return [2 * x if s == d else -x for s in range(3)]


def expected_sheet(bodies: list[dict[str, Any]]) -> tuple[list[list[int]], list[int], list[int]]:
    owed, totals, rows = [0, 0, 0], [0, 0, 0], []
    for body in bodies:
        row = []
        for seat, n in enumerate(expected_net(body)):
            if n <= 0:
                owed[seat] += -n
                row.append(0)
            else:
                pay = min(n, owed[seat])
                owed[seat] -= pay
                row.append(n - pay)
            totals[seat] += row[-1]
        rows.append(row)
    return rows, totals, owed


EVENING = [
    hand(1, [2, 7, 2]),
    hand(0, [5, 3, 3], contract="2", trumps="spades"),
    hand(2, [1, 3, 7], contract="1", trumps="none", kontra="szubkontra"),
    hand(0, [6, 5, 0], contract="2", trumps="hearts", kontra="rekontra"),
    hand(1, [0, 6, 5], contract="3", trumps="clubs"),
    hand(2, [0, 0, 11], contract="3", trumps="diamonds"),
    hand(0, [0, 5, 6], contract="hand", trumps="none"),
    hand(
        1,
        [3, 6, 2],
        contract="3",
        trumps="clubs",
        arrivazs={"won": True, "idegen": True, "kontra": "kontra"},
    ),
    hand(
        2, [4, 3, 4], contract="2", trumps="spades", arrivazs={"won": False, "kontra": "rekontra"}
    ),
    amounts(30, -15, -15),
    hand(
        0, [8, 2, 1], contract="hand", trumps="hearts", kontra="mordkontra", arrivazs={"won": True}
    ),
    hand(1, [5, 6, 0], contract="1", trumps="none", kontra="hirskontra"),
]


def _check(table: Table, bodies: list[dict[str, Any]]) -> None:
    rows, totals, owed = expected_sheet(bodies)
    sheet = table.get("/sheet", who="viewer").json()
    assert [row["cells"] for row in sheet["rows"]] == rows
    assert sheet["totals"] == totals and sheet["owed"] == owed
    match = table.match()
    assert match["totals"] == totals and match["owed"] == owed
    nets = [sum(expected_net(b)[s] for b in bodies) for s in range(3)]
    assert match["net"] == nets
    assert [t - o for t, o in zip(totals, owed, strict=True)] == nets


def test_an_evening_with_a_correction_an_undo_and_end_match(table: Table) -> None:
    played: list[dict[str, Any]] = []
    for number, body in enumerate(EVENING, start=1):
        created = table.round(body, who=number % 3)
        assert created["result"]["net"] == expected_net(body)
        assert created["dealer"] == (number - 1) % 3
        played.append(body)
    _check(table, played)

    # An early hand was entered wrong: round 2 was really won by the declarer.
    played[1] = hand(0, [7, 2, 2], contract="2", trumps="spades")
    assert table.put("/rounds/2", played[1], who=1).status_code == 200
    _check(table, played)

    # The last hand is undone, and a different one entered.
    assert table.delete(f"/rounds/{len(played)}", who=2).status_code == 204
    played.pop()
    _check(table, played)
    played.append(hand(2, [2, 2, 7], contract="1", trumps="hearts"))
    table.round(played[-1], who=0)
    _check(table, played)

    ended = table.post("/end", who=0).json()
    _, totals, _ = expected_sheet(played)
    best = max(totals)
    assert ended["status"] == "ended"
    assert ended["winner"]["seats"] == [s for s in range(3) if totals[s] == best]
    assert [p["name"] for p in ended["players"]] == PLAYERS
