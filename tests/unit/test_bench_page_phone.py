"""The phones of ``make bench-live``'s page crowd do on each event what the page does
(app/web/events.js): apply the next version from the event, leave one they have, and
read the match again for anything else."""

from __future__ import annotations

from typing import Any

import pytest

from scripts.bench_live import page_step


def _event(kind: str, version: int) -> dict[str, Any]:
    return {"kind": kind, "version": version, "match": {"version": version}}


@pytest.mark.parametrize(
    ("held", "kind", "version", "step"),
    [
        (4, "round_entered", 5, "apply"),
        (4, "match_updated", 5, "apply"),
        (4, "ended", 5, "apply"),
        (4, "round_entered", 4, "same"),  # had it already (read it meanwhile)
        (4, "snapshot", 4, "same"),
        (4, "round_entered", 6, "read"),  # version 5 went by unseen
        (4, "snapshot", 6, "read"),  # a snapshot carries no rows
        (4, "seat_swapped", 5, "read"),  # a kind the page does not know
    ],
)
def test_a_page_phone_applies_only_the_next_version_of_a_known_kind(
    held: int, kind: str, version: int, step: str
) -> None:
    assert page_step(held, kind, _event(kind, version)) == step


def test_an_event_without_the_match_is_read_again() -> None:
    assert page_step(4, "round_entered", {"kind": "round_entered", "version": 5}) == "read"
