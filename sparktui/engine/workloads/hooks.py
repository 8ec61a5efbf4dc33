"""Hooks on a node (``before_serve``, ``after_stop``), and the failure of a step."""

from __future__ import annotations

from collections.abc import Callable

from sparktui.engine.progress import ProgressLog
from sparktui.engine.remote.transport import NodeError, Transport
from sparktui.plan.model import HookStep
from sparktui.said import Layout, Text, joined
from sparktui.steps import Step, StepState

ScriptText = Callable[[str], str]


class StepFailed(Exception):
    def __init__(self, node: str | None, step: Step, detail: Text, reported: bool = False):
        self.node, self.step, self.detail = node, step, detail
        self.reported = reported
        super().__init__(f"{node}: {step}: {detail}")


async def run_hook(t: Transport, node: str, step: HookStep, phase: Step, scripts: ScriptText,
                   say: ProgressLog) -> None:
    """One hook on one node; ``abort`` raises StepFailed, ``warn`` reports and goes on."""
    say(phase, node, StepState.STARTED, f"{step.kind} {step.run}")
    detail: Text
    try:
        if step.kind == "script":
            result = await t.run("bash -s", stdin=scripts(step.run))
        else:
            result = await t.run(step.run)
    except NodeError as exc:  # the node did not answer: the hook's outcome is unknown
        detail = joined(Layout.COLON, step.run, exc.said)
    else:
        if result.ok:
            say(phase, node, StepState.OK, step.run)
            return
        output = (result.stderr or result.stdout).strip()[:300]
        detail = f"{step.run} exited {result.exit_code}: {output}"
    if step.on_failure == "warn":
        say(phase, node, StepState.WARN, detail)
        return
    raise StepFailed(node, phase, detail)
