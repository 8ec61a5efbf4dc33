"""Closing merged log streams while their queue is full (Ctrl+C on a busy `logs -f`).

Pure asyncio: the node streams are in-memory generators, so the queue fills without any
timing; the bound on ``aclose`` only turns a hang into a failure.
"""

from __future__ import annotations

import asyncio

from sparktui.engine.status import LogBatch
from sparktui.engine.workloads.logs import merge


async def test_closing_a_merge_whose_queue_is_full_returns_and_closes_every_stream():
    produced = {"a": 0, "b": 0}
    closed: set[str] = set()

    async def endless(node: str):
        try:
            while True:
                produced[node] += 1
                yield LogBatch(node, [f"line {produced[node]}"])
        finally:
            closed.add(node)

    merged = merge([endless("a"), endless("b")])
    first = await merged.__anext__()
    assert first.lines
    # Let the pumps run until both are blocked on the full queue (64 batches).
    for _ in range(10_000):
        if sum(produced.values()) > 64 + 2:
            break
        await asyncio.sleep(0)
    assert sum(produced.values()) > 64 + 2, "the pumps never filled the queue"
    await asyncio.wait_for(merged.aclose(), 10)
    assert closed == {"a", "b"}


async def test_a_merge_ends_when_every_stream_ends():
    async def finite(node: str, count: int):
        for i in range(count):
            yield LogBatch(node, [str(i)])

    got = [batch async for batch in merge([finite("a", 100), finite("b", 3)])]
    assert sorted(b.node for b in got) == ["a"] * 100 + ["b"] * 3
