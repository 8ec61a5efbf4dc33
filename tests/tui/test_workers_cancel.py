"""A read worker ends when it is cancelled, even when an await under it lost the
cancellation.

Python 3.11's ``asyncio.wait_for`` swallows a cancellation that lands as its inner
await finishes (CPython gh-86296). A config reload once left the telemetry loop
running on the retired engine, reopening its connections (seen once in a loaded full
run). The real engine shows that race only by chance, so these engines are stand-ins
that lose the cancellation every time, the one fault they model.
"""

from __future__ import annotations

import asyncio
import contextlib

from null_engine import NullEngine

from sparktui.engine.status import LogBatch
from sparktui.tui import workers


class SwallowingEngine(NullEngine):
    """Its first read waits until cancelled, then returns as if it had finished; a read
    after that (the loop going on) is recorded and waits for good."""

    def __init__(self) -> None:
        self.waiting = asyncio.Event()
        self.read_again = asyncio.Event()
        self.reads = 0

    async def _wait(self) -> None:
        self.reads += 1
        if self.reads > 1:
            self.read_again.set()
            await asyncio.Event().wait()
        self.waiting.set()
        with contextlib.suppress(asyncio.CancelledError):  # lost, as wait_for loses it
            await asyncio.Event().wait()

    async def telemetry(self, cluster: str) -> None:
        await self._wait()

    async def log_batches(self, cluster: str, *, node=None, recipe=None, tail: int = 200,
                          follow: bool = True):
        await self._wait()
        yield LogBatch("node1", ["a line read after the cancel"])


async def _cancelled_while_reading(make) -> tuple[asyncio.Task, SwallowingEngine]:
    """Cancel the follower during its first read; it must end before it reads again."""
    engine = SwallowingEngine()
    task = asyncio.create_task(make(engine))
    await engine.waiting.wait()
    task.cancel()
    again = asyncio.create_task(engine.read_again.wait())
    await asyncio.wait({task, again}, return_when=asyncio.FIRST_COMPLETED)
    again.cancel()
    if not task.done():  # it went on: end it (this cancel is not lost) and fail below
        task.cancel()
        await asyncio.wait({task})
    return task, engine


def test_telemetry_ends_although_its_sample_lost_the_cancel():
    delivered: list = []

    async def go():
        return await _cancelled_while_reading(
            lambda e: workers.follow_telemetry(e, "test", delivered.append, 0.01))

    task, engine = asyncio.run(go())
    assert task.cancelled() and engine.reads == 1 and delivered == []


def test_log_follower_ends_although_its_stream_lost_the_cancel():
    delivered: list = []

    async def go():
        return await _cancelled_while_reading(
            lambda e: workers.follow_logs(e, "test", delivered.append, retry_seconds=0.01,
                                          flush_seconds=0.01))

    task, engine = asyncio.run(go())
    assert task.cancelled() and engine.reads == 1 and delivered == []
