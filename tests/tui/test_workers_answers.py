"""What the dashboard says when the engine refuses a read: the engine's own words, never
"nothing there". A refusal is a failed read like any other (no method is missing on an
engine, and none is probed for)."""

from __future__ import annotations

import asyncio

from null_engine import NullEngine

from sparktui.engine.telemetry.figures import TelemetryFrame
from sparktui.tui import workers


def test_a_refused_deep_check_is_a_failure_not_nothing_serving():
    ok, line = asyncio.run(workers.deep_check(NullEngine(), "c"))
    assert not ok
    assert line == "deep check failed: not supported by this test engine: deep_check"


def test_a_refused_inspect_names_the_node_and_the_engines_words():
    said = asyncio.run(workers.read_inspect(NullEngine(), "c", "node1", "sparktui-x"))
    assert said == "node1: not supported by this test engine: inspect"


class SecondSample(NullEngine):
    """Refuses its first sample, answers the second."""

    def __init__(self) -> None:
        self.samples = 0

    async def telemetry(self, cluster: str) -> TelemetryFrame:
        self.samples += 1
        if self.samples == 1:
            return await super().telemetry(cluster)
        return TelemetryFrame(cluster, 1.0, 0.01, [])


def test_telemetry_samples_on_after_a_refused_sample():
    engine = SecondSample()
    delivered: list = []

    async def go() -> None:
        task = asyncio.create_task(workers.follow_telemetry(engine, "c", delivered.append,
                                                            0.01))
        while not delivered:
            await asyncio.sleep(0.01)
        task.cancel()
        await asyncio.wait({task})

    asyncio.run(asyncio.wait_for(go(), 60))  # a hang guard only
    assert engine.samples >= 2 and delivered[0].frame.cluster == "c"
