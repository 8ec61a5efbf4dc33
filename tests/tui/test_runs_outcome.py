"""The one line a finished stop leaves (the view's status and the notification): a restore
that did not finish is said, never folded into "stopped"."""

from __future__ import annotations

from sparktui.engine.api import ActionResult, Progress, Step, StepState
from sparktui.tui.actions import Action
from sparktui.tui.viewmodel.runs import ActionRun


def _stop(result: ActionResult) -> ActionRun:
    return ActionRun(1, Action.STOP, "2nodes", None, 0.0, result=result)


def test_a_clean_stop_says_stopped():
    steps = [Progress(Step.STOP, "spark1", StepState.OK, "sparktui-x"),
             Progress(Step.AFTER_STOP, "spark1", StepState.OK, "restore")]
    assert _stop(ActionResult(True, steps=steps)).outcome() == "stopped what 2nodes ran"


def test_a_restore_that_warned_is_named_in_the_outcome():
    steps = [Progress(Step.AFTER_STOP, "spark1", StepState.WARN, "restore exited 1"),
             Progress(Step.AFTER_STOP, "spark2", StepState.WARN, "restore exited 1"),
             Progress(Step.AFTER_STOP, "spark1", StepState.WARN, "second hook exited 1")]
    outcome = _stop(ActionResult(True, steps=steps)).outcome()
    assert outcome == ("stopped what 2nodes ran, but after_stop did not finish on "
                       "spark1, spark2: restore them by hand")
