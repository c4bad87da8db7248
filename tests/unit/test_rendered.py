"""The kept bodies of heavy reads (app.api.rendered): a byte budget, least recently used
dropped first."""

from __future__ import annotations

from app.api.rendered import Kept, Rendered


def body(size: int) -> Kept:
    return Kept(b"x" * size)


def test_past_the_budget_the_least_recently_used_body_goes() -> None:
    kept = Rendered(max_bytes=30)
    for version in (1, 2, 3):
        kept.get(("m", version, "json"), lambda: body(10))
    kept.get(("m", 1, "json"), lambda: body(10))  # used again: now the most recent
    kept.get(("m", 4, "json"), lambda: body(10))  # over 30 bytes: version 2 goes
    assert kept.size == 30
    assert kept.renders == 4
    kept.get(("m", 1, "json"), lambda: body(10))
    kept.get(("m", 3, "json"), lambda: body(10))
    assert kept.renders == 4
    kept.get(("m", 2, "json"), lambda: body(10))
    assert kept.renders == 5


def test_a_body_larger_than_the_budget_is_served_but_not_kept() -> None:
    kept = Rendered(max_bytes=30)
    kept.get(("m", 1, "json"), lambda: body(10))
    assert kept.get(("m", 1, "csv"), lambda: body(31)).content == b"x" * 31
    kept.get(("m", 1, "csv"), lambda: body(31))
    assert kept.renders == 3
    assert kept.size == 10


def test_a_budget_of_zero_keeps_nothing() -> None:
    kept = Rendered(max_bytes=0)
    kept.get(("m", 1, "json"), lambda: body(1))
    kept.get(("m", 1, "json"), lambda: body(1))
    assert (kept.renders, kept.size) == (2, 0)
