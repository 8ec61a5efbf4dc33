"""The logs pane hears a node's docker error once (#29 item 4): the follower reconnects
every few seconds and each reconnection said "docker unreachable" again. Said once, again
only after the node recovered. The real engine on a real dockerd taken down."""

from __future__ import annotations

import asyncio

from null_engine import NullEngine
from polling import eventually_async

from sparktui.tui import workers


class Rounds(NullEngine):
    """The real engine's logs, its reconnections counted (each a full health check)."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self.done = 0

    async def log_batches(self, cluster: str, *, node=None, recipe=None, tail: int = 200,
                          follow: bool = True):
        async for batch in self.engine.log_batches(cluster, node=node, recipe=recipe,
                                                   tail=tail, follow=follow):
            yield batch
        self.done += 1


async def _rounds(rounds: Rounds, more: int) -> None:
    target = rounds.done + more
    while rounds.done < target:
        await asyncio.sleep(0.05)


def _told(delivered) -> list[str]:
    return [text for arrived in delivered for node, text, _gap in arrived.lines
            if node == "node2" and "docker unreachable" in text]


def test_the_logs_pane_says_a_dead_docker_once_and_again_after_it_recovered(fresh_site):
    s = fresh_site(2)
    node2 = s.hosts.node("node2")
    node2.docker_down()
    delivered: list = []

    async def go() -> None:
        engine = s.engine()
        rounds = Rounds(engine)
        task = asyncio.create_task(workers.follow_logs(
            rounds, "test", delivered.append, retry_seconds=0.01, flush_seconds=0.01))
        try:
            await _rounds(rounds, 4)  # four reconnections, docker down in each
            await eventually_async(lambda: _told(delivered), 30, "a line")
            assert len(_told(delivered)) == 1, _told(delivered)
            node2.docker_up()
            await _rounds(rounds, 2)  # a whole round with node2's docker answering
            node2.docker_down()
            await _rounds(rounds, 3)
            await eventually_async(lambda: len(_told(delivered)) > 1, 30, "said again")
            assert len(_told(delivered)) == 2, _told(delivered)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await engine.close()

    try:
        asyncio.run(go())
    finally:
        node2.docker_up()
