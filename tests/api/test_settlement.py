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


def test_an_own_table_settles_in_the_fewest_payments(client: Any) -> None:
    players = ["Anna", "Bela", "Cili", "Dani", "Erno"]
    table = Table(client, {"game": "own_table", "players": players, "settings": {"zero_sum": True}})
    table.round({"type": "own_points", "points": [-4, -3, 2, 2, 3]})
    expected = [
        {"payer": 0, "payee": 2, "amount": 2},
        {"payer": 0, "payee": 3, "amount": 2},
        {"payer": 1, "payee": 4, "amount": 3},
    ]
    assert table.get().json()["settlement"] == expected  # three payments, not four
    assert table.get("/sheet").json()["settlement"] == expected


def test_teams_settle_between_teams_in_the_fewest_payments(client: Any) -> None:
    players = ["A", "B", "C", "D", "E", "F", "G", "H"]
    body = {"game": "own_table", "players": players, "settings": {"teams": 4, "zero_sum": True}}
    table = Table(client, body)
    table.round({"type": "own_points", "points": [-5, 5, -3, 3]})
    settlement = table.get().json()["settlement"]
    assert settlement == [
        {"payer": 0, "payee": 1, "amount": 5},
        {"payer": 2, "payee": 3, "amount": 3},
    ]
    assert _paid(settlement, 4) == [-5, 5, -3, 3]
