"""Words for the codes the engine reports (steps, states): the code stays English for JSON
and tests, people read ``step_label(code)`` in their language."""

from __future__ import annotations

from sparktui.i18n import N_, _
from sparktui.said import Code, Said, Seconds, Text, said
from sparktui.steps import Outcome, Step, StepState


class StepLabel(Code):
    """A step's words (``Step``'s member of the same name). A step named inside a
    sentence is one of these (``step_said``), so the sentence keeps the step as its code
    (``step_label.ready``) and its words are made where it is shown. A step shown today by
    its code keeps that code as its English words (before_serve)."""

    PREFLIGHT = N_("preflight")
    FIT = N_("memory fit")
    SHARES = N_("memory shares")
    HF = N_("HF refs")
    BEFORE_SERVE = N_("before_serve")
    SERVICE = N_("service")
    LAUNCH = N_("launch")
    READY = N_("ready")
    ROLLBACK = N_("rollback")
    LEFT = N_("left running")
    STOP = N_("stop")
    AFTER_STOP = N_("after_stop")
    SHUTDOWN = N_("shutdown")
    HALT = N_("halt")
    DELAY = N_("delay")
    POWER_OFF = N_("power off")
    POWER_ON = N_("power on")
    BOOT = N_("boot")
    SUPERVISE = N_("supervise")
    ROUTER = N_("router")
    BENCH = N_("benchmark")
    PULL_IMAGE = N_("pull image")
    PULL_MODEL = N_("pull model")
    SLURM = N_("slurm job")


STEPS: dict[Step, str] = {step: StepLabel[step.name].value for step in Step}
STATES: dict[StepState, str] = {
    StepState.OK: "ok", StepState.FAILED: N_("failed"), StepState.WARN: N_("warn"),
    StepState.STARTED: N_("started"), StepState.WAITING: N_("waiting"),
}


def step_label(step: str) -> str:
    """``step`` in the active language; a code that is no ``Step`` (``-``) as it is."""
    return _(STEPS[Step(step)]) if step in STEPS else step


def step_said(step: str) -> Text:
    """``step`` as a sentence whose words are its label, made when shown; a code that
    is no ``Step`` (``-``, a newer version's) as it is."""
    return said(StepLabel[Step(step).name]) if step in STEPS else step


def state_label(state: str) -> str:
    return _(STATES[StepState(state)]) if state in STATES else state


class Waits(Code):
    GRACE = N_("waiting up to {seconds} for {workload} to exit after SIGTERM, then SIGKILL")


def grace_wait(workload: str, seconds: float) -> Said:
    """What a stop waits for while an engine has its grace period (one that ignores
    SIGTERM takes all of it)."""
    return said(Waits.GRACE, seconds=Seconds(seconds), workload=workload)


def outcome_line(outcome: Outcome) -> str:
    """``power_off  switch.node2 (node2)  kept on: node2 did not go down``."""
    target = (f"{outcome.target} ({outcome.node})" if outcome.node
              and outcome.node != outcome.target else outcome.target)
    return f"{outcome.action:<10} {target:<28} {outcome.detail}"


def container_state(state: str, exit_code: int | None, *, zero: bool = False,
                    short: bool = False) -> str:
    """docker's state in words. A container docker created and never started (its start
    failed: no GPU runtime, an entrypoint that does not exist) is "created, never
    started" (``short``, for a narrow column: "not started"): the exit code docker
    gives it (128, or 0) and its start time (year 1) are no facts. Another one not
    running shows its exit code (``zero``: 0 too)."""
    if state == "created":
        return _("not started") if short else _("created, never started")
    if exit_code is not None and state != "running" and (zero or exit_code != 0):
        return f"{state} ({exit_code})"
    return state


def failed_where(node: str | None, step: str | None) -> str:
    """"on spark2 at launch", or "at benchmark" for a step of no node: never "on -"."""
    where = step_label(step) if step else _("an unknown step")
    if node:
        return _("on {node} at {step}").format(node=node, step=where)
    return _("at {step}").format(step=where)
