"""A runtime's commands (``sparktui.plan.runtime``) run on a node: state, logs, stop, remove.

Serve, stop, the services' probes and health all reach a workload through these, so
what a state or a removal means is decided in one place per runtime.
"""

from __future__ import annotations

from collections.abc import Callable

from sparktui.engine.api import Step, StepState
from sparktui.engine.progress import ProgressLog
from sparktui.engine.remote.transport import Completed, NodeError, Transport
from sparktui.engine.workloads.docker_api import docker_image_id, docker_state
from sparktui.labels import grace_wait
from sparktui.plan.runtime import runtime_for
from sparktui.plan.runtime.base import State
from sparktui.said import Text

STOP_MARGIN_SECONDS = 15.0
"""How much longer than the runtime's grace period a stop waits before giving up on it."""


async def workload_state(t: Transport, runtime: str, name: str,
                         timeout: float | None = None) -> State:
    """docker's through its API where it answers (docker_api.py), else the runtime's
    state command."""
    if runtime == "docker":
        state = await docker_state(t, name, timeout)
        if state is not None:
            return state
    rt = runtime_for(runtime)
    return rt.parse_state(await t.run(rt.state_command(name), timeout=timeout))


async def node_image_id(t: Transport, runtime: str, image: str) -> Completed | None:
    """The ID of ``image`` on the node as the runtime's image command answers it (its
    error when the image is not there); None: the runtime runs no images. docker's
    through its API where it answers (docker_api.py)."""
    command = runtime_for(runtime).image_id_command(image)
    if command is None:
        return None
    if runtime == "docker":
        found = await docker_image_id(t, image)
        if found is not None:
            return Completed(0, found, "")
    return await t.run(command)


async def last_lines(t: Transport, runtime: str, name: str, tail: int | None = None) -> str:
    """The workload's output so far (stderr included): the last ``tail`` lines, or all."""
    return (await t.run(runtime_for(runtime).logs_command(name, tail, follow=False))).stdout


async def signal_stop(t: Transport, runtime: str, name: str) -> None:
    """Tell a head to stop serving now (SIGTERM), before its group is removed."""
    command = runtime_for(runtime).signal_command(name)
    if command is not None:
        await t.run(command)


async def remove_workload(t: Transport, runtime: str, name: str,
                          grace_seconds: float = 30.0,
                          waiting: Callable[[Text], None] | None = None) -> Completed:
    """Stop (the engine gets its grace period, then SIGKILL), then always remove.

    The stop runs under a timeout of the grace period plus a margin, so an engine that
    needs all of it is waited for instead of abandoned a moment before it is killed;
    the remove runs whatever the stop said. A workload that is already gone is success.
    ``waiting`` is told what is waited for and how long before the stop runs: an engine
    that ignores SIGTERM holds the stop for the whole grace period, which must not pass
    in silence.
    """
    rt = runtime_for(runtime)
    removal = rt.removal(name, grace_seconds)
    if removal.stop is not None:
        if waiting is not None and removal.stop_seconds > 0:
            waiting(grace_wait(name, removal.stop_seconds))
        try:
            await t.run(removal.stop, timeout=removal.stop_seconds + STOP_MARGIN_SECONDS)
        except NodeError as exc:
            if exc.reason != "timeout":
                raise
    result = await t.run(removal.remove)
    return Completed(0 if rt.removed(result) else result.exit_code, result.stdout, result.stderr)


async def roll_back(t: Transport, node: str, runtime: str, container: str, say: ProgressLog,
                    grace_seconds: float = 30.0) -> bool:
    """Remove one workload a failed serve started; a failure is reported, not raised.
    True: it is gone (its ``rollback ok`` row names it)."""
    say(Step.ROLLBACK, node, StepState.STARTED, container)
    try:
        result = await remove_workload(
            t, runtime, container, grace_seconds,
            waiting=lambda detail: say(Step.ROLLBACK, node, StepState.WAITING, detail))
    except NodeError as exc:
        say(Step.ROLLBACK, node, StepState.FAILED, exc.said)
        return False
    if result.ok:
        say(Step.ROLLBACK, node, StepState.OK, container)
        return True
    say(Step.ROLLBACK, node, StepState.FAILED, (result.stderr or result.stdout).strip()[:200])
    return False
