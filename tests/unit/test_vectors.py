"""The published scoring vectors (docs/vectors/scoring-vectors.json) are what the
game modules answer, and what they answer is right."""

from __future__ import annotations

import json
from typing import Any

from app.games.settlement import Payment
from scripts import export_vectors
from tests.unit.test_settle import check_pays_out, fewest_payments


def test_the_committed_vectors_are_what_the_game_modules_answer() -> None:
    committed = export_vectors.PATH.read_text(encoding="utf-8")
    assert committed == export_vectors.render(), "run `make vectors` and commit the file"


def test_every_settlement_vector_pays_out_in_the_fewest_payments() -> None:
    cases = json.loads(export_vectors.PATH.read_text(encoding="utf-8"))["settlement"]
    assert len(cases) == len(export_vectors.SETTLEMENTS)
    for case in cases:
        payments = [Payment(**payment) for payment in case["payments"]]
        check_pays_out(case["net"], payments)
        assert len(payments) == fewest_payments(case["net"]), case["about"]


def _steps(game: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every step of a game's tables, each with its table."""
    tables = json.loads(export_vectors.PATH.read_text(encoding="utf-8"))["games"][game]
    return [(table, step) for table in tables for step in table["steps"]]


def test_the_vectors_cover_every_branch_of_the_rules() -> None:
    """A port checked against the file meets every rule that has a branch."""
    hands = [s["round"] for _, s in _steps("asszorti") if "score" in s and "tricks" in s["round"]]
    assert {h.get("kontra", "none") for h in hands} == {
        "none",
        "kontra",
        "rekontra",
        "szubkontra",
        "hirskontra",
        "mordkontra",
    }
    assert {h["contract"] for h in hands} == {"3", "2", "1", "hand"}
    assert any(h["trumps"] == "none" for h in hands) and any(h["trumps"] != "none" for h in hands)
    arrivazs = [h["arrivazs"] for h in hands if h.get("arrivazs")]
    assert {a["won"] for a in arrivazs} == {True, False}
    assert any(a.get("idegen") for a in arrivazs) and any(a.get("kontra") for a in arrivazs)
    six_five = [h for h in hands if h["tricks"][h["declarer"]] == 6 and 5 in h["tricks"]]
    assert {h.get("kontra", "none") == "none" for h in six_five} == {True, False}
    # Carried debts: a win that pays part of a debt, and one that pays it all.
    paid = []
    for table in json.loads(export_vectors.PATH.read_text(encoding="utf-8"))["games"]["asszorti"]:
        owed = [0, 0, 0]
        for step in table["steps"]:
            if "score" in step:
                paid += [
                    (owed[seat], step["owed"][seat])
                    for seat, net in enumerate(step["score"]["net"])
                    if net > 0 and owed[seat] > 0
                ]
                owed = step["owed"]
    assert any(after > 0 for _, after in paid) and any(after == 0 for _, after in paid)

    deals = [s for _, s in _steps("alkort") if "score" in s]
    assert {d["score"]["breakdown"]["kind"] for d in deals} == {"stroke", "muk", "plain"}
    assert any(len(d["round"].get("tricks", [])) in range(6, 9) for d in deals)  # early stop
    assert any(d["round"]["type"] == "alkort_points" for d in deals)
    moves = [s for _, s in _steps("alkort") if "settings" in s]
    assert {m.get("status") for m in moves} >= {"decided", "in_progress"}
    assert any(m.get("refused") == "target_already_reached" for m in moves)

    own = _steps("own_table")
    assert any(t["settings"].get("zero_sum") and s.get("settlement") for t, s in own)
    assert any(t["settings"].get("lowest_wins") and s.get("winner") for t, s in own)
    assert any(s.get("status") == "decided" and s.get("winner") is None for _, s in own)
    for game in ("asszorti", "alkort", "own_table"):
        assert any("rejected" in s for _, s in _steps(game)), game
