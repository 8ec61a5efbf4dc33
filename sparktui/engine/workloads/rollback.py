"""Removing what a failed serve started, each workload through its runtime's driver."""

from __future__ import annotations

from sparktui.config.runtime_name import RuntimeName
from sparktui.engine.drivers import driver_for
from sparktui.engine.progress import ProgressLog
from sparktui.engine.remote.transport import NodeError, Transport
from sparktui.steps import Step, StepState


async def roll_back(t: Transport, node: str, runtime: RuntimeName, container: str,
                    say: ProgressLog, grace_seconds: float = 30.0) -> bool:
    """Remove one workload a failed serve started; a failure is reported, not raised.
    True: it is gone (its ``rollback ok`` row names it)."""
    say(Step.ROLLBACK, node, StepState.STARTED, container)
    try:
        result = await driver_for(runtime).remove(
            t, container, grace_seconds,
            waiting=lambda detail: say(Step.ROLLBACK, node, StepState.WAITING, detail))
    except NodeError as exc:
        say(Step.ROLLBACK, node, StepState.FAILED, exc.said)
        return False
    if result.ok:
        say(Step.ROLLBACK, node, StepState.OK, container)
        return True
    say(Step.ROLLBACK, node, StepState.FAILED, (result.stderr or result.stdout).strip()[:200])
    return False
