"""Container logs as an async iterator of tagged lines, one node or many merged.

A dropped stream reconnects with backoff and yields a gap marker; stopping the
iterator terminates the remote reader (``docker logs``) so nothing is left on the node.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from sparktui.engine.remote.transport import NodeError, Transport
from sparktui.engine.status import LogBatch, Workload
from sparktui.plan.runtime import runtime_for

BACKOFF = (0.5, 1.0, 2.0, 5.0, 10.0)


async def node_logs(transport: Transport, workload: Workload, *, tail: int = 200,
                    follow: bool = True, is_running=None,
                    tag: str | None = None) -> AsyncIterator[LogBatch]:
    """Batches of one workload's lines, tagged with its node (or ``tag``); with
    ``follow``, reconnects until it ends."""
    node = tag or transport.node.name
    runtime = runtime_for(workload.runtime)
    attempt = 0
    first = True
    while True:
        command = runtime.logs_command(workload.name, tail if first else 0, follow)
        got_lines = False
        try:
            stream = await transport.stream(command)
        except NodeError:
            stream = None
        if stream is not None:
            try:
                async for texts in stream.chunks():
                    got_lines = True
                    yield LogBatch(node, texts)
            except (OSError, NodeError, ConnectionError):
                pass
            finally:
                await stream.stop()
        first = False
        if not follow:
            return
        if is_running is not None and not await is_running():
            return
        if got_lines:
            attempt = 0
        yield LogBatch(node, [], gap=True)
        await asyncio.sleep(BACKOFF[min(attempt, len(BACKOFF) - 1)])
        attempt += 1


async def merge(iterators: list[AsyncIterator[LogBatch]]) -> AsyncIterator[LogBatch]:
    """Interleave several node streams batch by batch; closing this closes them all."""
    queue: asyncio.Queue = asyncio.Queue(maxsize=64)
    done = object()

    async def pump(iterator: AsyncIterator[LogBatch]) -> None:
        try:
            async for line in iterator:
                await queue.put(line)
        except asyncio.CancelledError:
            # The consumer is closing and reads nothing more: a put into a full queue
            # here would never return, and closing would hang (seen under load).
            raise
        except BaseException:
            await queue.put(done)
            raise
        await queue.put(done)

    tasks = [asyncio.create_task(pump(it)) for it in iterators]
    remaining = len(tasks)
    try:
        while remaining:
            item = await queue.get()
            if item is done:
                remaining -= 1
            else:
                yield item
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        for iterator in iterators:
            with contextlib.suppress(BaseException):
                await iterator.aclose()  # type: ignore[attr-defined]
