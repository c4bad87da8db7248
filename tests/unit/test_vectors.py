"""The published scoring vectors (docs/vectors/scoring-vectors.json) are what the
game modules answer, and what they answer is right."""

from __future__ import annotations

import json

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
