"""Every phone back at once after a restart: the objects of the waiting openings are
frozen out of garbage collection as the openings come, every ``FREEZE_IN_A_FLOOD`` of
them, not on the freezer's tick (which a flooded event loop reaches late, while the
interpreter's full collections walk every waiting opening again and again)."""

from __future__ import annotations

import asyncio
import gc

import pytest

from app import live
from app.live import ChangeHub

FLOOD = 10


def test_a_flood_of_openings_is_frozen_as_it_comes_without_the_freezer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(live, "FREEZE_IN_A_FLOOD", FLOOD)
    hub = ChangeHub(db=None)  # type: ignore[arg-type]  # an opening's turn reads no database
    frozen: list[int] = []

    async def main() -> None:
        for _ in range(2 * FLOOD + 5):
            async with hub.opening("127.0.0.1"):
                frozen.append(gc.get_freeze_count())

    gc.unfreeze()
    try:
        asyncio.run(main())  # the freezer task is not running: only the openings freeze
    finally:
        gc.unfreeze()
    assert frozen[: FLOOD - 1] == [0] * (FLOOD - 1)  # not yet a flood
    assert frozen[FLOOD - 1] > 0  # the tenth opening froze what the process held
    assert hub.opened_since_freeze == 5  # counted again from each freeze
