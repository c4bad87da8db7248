"""Idle streams' heartbeats fall due together: a subscription's wait ends on a tick
(``TICK_S``), so the streams that began waiting within one tick wake in one go."""

from __future__ import annotations

import asyncio
import math

import pytest

from app import live
from app.live import Subscription

TICK_S = 1.0  # long, so a busy machine's delays stay well inside one tick
TIMEOUT_S = 1.0


def test_waits_begun_within_one_tick_end_together_on_the_next_tick_after_their_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(live, "TICK_S", TICK_S)

    async def main() -> tuple[float, dict[str, float]]:
        loop = asyncio.get_running_loop()
        boundary = math.ceil(loop.time() / TICK_S) * TICK_S
        await asyncio.sleep(boundary - loop.time() + 0.01)  # just past a tick
        began = loop.time()
        ended: dict[str, float] = {}

        async def wait(name: str) -> None:
            assert await Subscription("m").wait(TIMEOUT_S) is False  # no change came
            ended[name] = loop.time()

        first = asyncio.create_task(wait("first"))
        await asyncio.sleep(0.1)  # the second begins 100 ms later, in the same tick
        await asyncio.gather(first, wait("second"))
        return began, ended

    began, ended = asyncio.run(main())
    due = math.ceil((began + TIMEOUT_S) / TICK_S) * TICK_S
    assert abs(ended["first"] - ended["second"]) < 0.05, ended  # one wake-up, not two
    assert due <= ended["first"] < due + TICK_S / 2, (due, ended)
