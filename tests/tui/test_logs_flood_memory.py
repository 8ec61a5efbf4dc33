"""What a log flood leaves for the cyclic garbage collector, and the view's width.

Under 50,000 lines a second the pane holds ~10,000 lines at a time and the worker carries
tens of thousands more. CPython untracks an exact tuple of plain values at its first
collection but keeps every NamedTuple tracked: when those were LogLine/Entry instances,
every full collection walked them all (~150 ms each, 16 in 13 s of flood: issue #31).
"""

from __future__ import annotations

import asyncio
import gc

from null_engine import NullEngine
from polling import eventually_async, pausing
from rich.cells import cell_len

from sparktui.engine.remote.node_error import Reason
from sparktui.engine.status import LogBatch, LogLine
from sparktui.said import said
from sparktui.tui import workers
from sparktui.tui.messages import LogsArrived
from sparktui.tui.viewmodel.logtext import entry_line
from sparktui.tui.widgets.logs import LogsPane
from tui.test_logs import LogsHarness, lines


async def test_buffered_lines_are_left_out_of_collections():
    app = LogsHarness(max_lines=100)
    async with app.run_test():
        pane: LogsPane = app.pane
        pane.add_lines([*lines("spark1", 150), LogLine("spark2", "gone", gap=True),
                        LogLine("", "stream failed", gap=True)])
        gc.collect()
        entries = [e for buf in pane.buffers.values() for e in buf]
        assert len(entries) == 102
        assert [e for e in entries if gc.is_tracked(e)] == []
        # the fields still read back as the lines that came
        assert pane.lines("spark1")[-1] == LogLine("spark1", "line 149")
        assert [entry_line(e) for e in pane.buffers["spark2"]] == [
            LogLine("spark2", "gone", True)]
        assert pane.lines("sparktui") == [LogLine("", "stream failed", True)]


class FloodOnce(NullEngine):
    """A stream that says one batch, a reconnection, then nothing."""

    async def log_batches(self, cluster: str, *, node=None, recipe=None, tail: int = 200,
                          follow: bool = True):
        yield LogBatch("node1", [f"INFO line {i}" for i in range(1000)])
        yield LogBatch("node2", [], gap=True, why=said(Reason.UNREACHABLE))  # words here
        await asyncio.Event().wait()


def test_the_worker_carries_lines_the_collector_can_leave_out():
    delivered: list[LogsArrived] = []

    async def go() -> None:
        task = asyncio.create_task(workers.follow_logs(
            FloodOnce(), "test", delivered.append, flush_seconds=0.01))
        while sum(len(m.lines) for m in delivered) < 1001:
            await asyncio.sleep(0.01)
        task.cancel()
        await asyncio.wait({task})

    asyncio.run(asyncio.wait_for(go(), 60))  # a hang guard only
    carried = [line for m in delivered for line in m.lines]
    assert carried[0] == ("node1", "INFO line 0", False)
    assert carried[-1] == ("node2", "unreachable", True)
    gc.collect()
    assert [line for line in carried if gc.is_tracked(line)] == []


async def test_width_of_tagged_lines_is_their_cells():
    """The width counts a ``node │`` tag's cells once per tag and the rest by length when
    it is plain ASCII: the same widths as measuring every line whole."""
    app = LogsHarness()
    async with app.run_test(size=(60, 20)) as pilot:
        view = app.pane.view
        cases = [
            ["spark1 │ " + "x" * 70],  # plain ASCII after the tag
            ["spark1 │ short", "spark1 │ 漢字" * 20],  # wide characters
            ["spark1 │ a\tb\tc" * 10],  # tabs after the tag expand
            ["spark1 │ bell\x07" * 15, "plain ascii"],  # control codes are replaced
            ["nœud │ " + "y" * 80],  # a tag that is not ASCII itself
        ]
        for written in cases:
            view.clear()
            view.write_lines(written)
            want = max(cell_len(view._process_line(line)) for line in written)
            await eventually_async(lambda w=want: view.virtual_size.width == w, look=pausing(pilot))
