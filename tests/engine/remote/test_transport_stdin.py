"""A command that ends before it has read its input has answered: its exit code and
output are the result, never "connection lost" (seen under load: a supervisor's lease
script that found the lease held exited before its input was sent)."""

from __future__ import annotations

import asyncio

from sparktui.engine.remote.transport import _run


class EndsFirst:
    """A real connection that hands a process back only once its channel has closed:
    the order a loaded node gives now and then, made certain."""

    def __init__(self, conn) -> None:
        self.conn = conn

    async def create_process(self, command: str, **options):
        process = await self.conn.create_process(command, **options)
        await process.wait_closed()
        return process


def test_a_command_that_ended_before_its_input_was_sent_is_its_answer(test_cluster):
    cluster = test_cluster(n=1)
    node = cluster.nodes[0]

    async def go():
        async with await cluster.connect(node) as conn:
            answered = await _run(EndsFirst(conn), "echo held; exit 3", "the lease text\n")
            fed = await _run(conn, "head -c 4 | tr a-z A-Z; exit 0", "abcdefgh" * 65536)
            return answered, fed

    answered, fed = asyncio.run(go())
    assert (answered.exit_code, answered.stdout) == (3, "held\n")
    assert (fed.exit_code, fed.stdout) == (0, "ABCD")
