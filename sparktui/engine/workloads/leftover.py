"""What a serve leaves on the cluster: whether a failed launch created its workload, and
which of the workloads it started no rollback removed (they are named, never left silent)."""

from __future__ import annotations

from collections.abc import Iterable

from sparktui.config.runtime_name import RuntimeName
from sparktui.engine.drivers import driver_for
from sparktui.engine.remote.transport import NodeError, Transport
from sparktui.engine.results import Progress
from sparktui.steps import Step, StepState


async def created(t: Transport, runtime: RuntimeName, name: str) -> bool:
    """Whether the node has the workload, in any state (docker run creates a container
    before it fails to start it). Unknown counts as yes: a removal is tried, and its row
    says how it went."""
    try:
        return not (await driver_for(runtime).state(t, name)).missing
    except NodeError:
        return True


def left_behind(events: Iterable[Progress],
                started: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The (node, workload) pairs of ``started`` that no ``rollback ok`` row removed."""
    gone = {(e.node, e.detail) for e in events
            if e.step == Step.ROLLBACK and e.state == StepState.OK}
    return [pair for pair in dict.fromkeys(started) if pair not in gone]
