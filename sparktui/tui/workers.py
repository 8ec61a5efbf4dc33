"""The one module of the TUI that calls the engine.

The coroutines here run as workers (the app's read workers, the controllers' actions):
each calls the engine and hands back what it said as a message (or a plain result);
none touches a widget or a screen, and no widget imports this module. What they call is
the session's engine: in ``--watch`` mode a ``ReadOnlyView``, an object that has no
mutating method to call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from sparktui.engine.api import (
    SOURCE_SEP,
    ActionResult,
    ClusterControl,
    ClusterView,
    ExecResult,
    ProgressSink,
    PullParts,
    TransferSink,
    within,
)
from sparktui.i18n import _
from sparktui.present.supervision import ending_lines
from sparktui.tui.messages import (
    ActionFinished,
    HealthFailed,
    HealthUpdated,
    LogsArrived,
    RawLine,
    TelemetryUpdated,
)

if TYPE_CHECKING:  # annotations only: the app imports this before its first frame
    from sparktui.engine.api import ClusterHealth, Described
    from sparktui.plan.after_stop import HooksFor
    from sparktui.plan.anywhere import Replan
    from sparktui.plan.bench.aiperf import BenchSettings
    from sparktui.plan.model import LaunchPlan

LOG_RETRY_SECONDS = 5.0
LOG_FLUSH_SECONDS = 0.05
"""The log follower posts what it read at most this often: one message per batch, however
fast the lines come (a flood must not flood the message queue)."""


def _end_if_cancelled() -> None:
    """Raise the cancellation a loop's await may have lost.

    Python 3.11's ``asyncio.wait_for`` (used all through the engine) swallows a
    cancellation that lands as its inner await finishes (CPython gh-86296, fixed in 3.12).
    The task still counts the request (``Task.cancelling``), so a follower checks it each
    round. Otherwise it would go on reading through an engine that a config reload has
    retired and closed, and open its connections again."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


async def fetch_health(engine: ClusterView, cluster: str,
                       timeout: float) -> HealthUpdated | HealthFailed:
    """One health check, as the message the dashboard handles."""
    try:
        health = await within(engine.health(cluster), timeout)
    except TimeoutError:
        return HealthFailed(cluster, _("health check timed out after {s:g} s").format(s=timeout))
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # the engine's bug or outage must not kill the dashboard
        return HealthFailed(cluster, str(exc) or type(exc).__name__)
    return HealthUpdated(health)


async def follow_telemetry(engine: ClusterView, cluster: str,
                           deliver: Callable[[TelemetryUpdated], None], interval: float) -> None:
    """Sample the cluster every ``interval`` seconds, start to start, never overlapping;
    a failed sample is skipped."""
    loop = asyncio.get_running_loop()
    while True:
        started = loop.time()
        try:
            async with asyncio.timeout(max(interval * 5, 10.0)):
                frame = await engine.telemetry(cluster)
        except asyncio.CancelledError:
            raise
        except Exception:  # a failed sample must not end the dashboard
            frame = None
        _end_if_cancelled()
        if frame is not None:
            deliver(TelemetryUpdated(frame))
        await asyncio.sleep(max(0.05, interval - (loop.time() - started)))


async def deep_check(engine: ClusterView, cluster: str) -> tuple[bool, str]:
    """The on-demand readiness tier: (passed, one line for a notification)."""
    try:
        result = await engine.deep_check(cluster)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # the engine's bug must not end the dashboard
        return False, _("deep check failed: {error}").format(error=str(exc) or type(exc).__name__)
    if result is None:
        return False, _("deep check: nothing serves on {cluster}").format(cluster=cluster)
    if result.unknown:  # a node did not say what runs: never "nothing serves"
        return False, _("deep check on {cluster}: {state}").format(cluster=cluster,
                                                                    state=result.error)
    if result.ok:
        return True, _("deep check: one-token completion in {ms:.0f} ms").format(
            ms=result.latency_ms or 0)
    return False, _("deep check failed: {error}").format(error=result.error or result.status)


async def follow_logs(engine: ClusterView, cluster: str,
                      deliver: Callable[[LogsArrived], None], *, tail: int = 200,
                      retry_seconds: float = LOG_RETRY_SECONDS,
                      flush_seconds: float = LOG_FLUSH_SECONDS) -> None:
    """Follow the cluster's logs, reconnecting when the stream ends, and deliver what came
    every ``flush_seconds`` as one ``LogsArrived`` (nothing when nothing came)."""
    batch: list[RawLine] = []

    async def flush() -> None:
        while True:
            await asyncio.sleep(flush_seconds)
            if batch:
                lines = batch[:]
                batch.clear()
                deliver(LogsArrived(cluster, lines))

    flusher = asyncio.create_task(flush())
    said = _Said()
    try:
        while True:
            try:
                async for part in engine.log_batches(cluster, tail=tail, follow=True):
                    _end_if_cancelled()
                    if part.gap:  # its reason in words here, at the edge
                        text = str(part.why) if part.why is not None else ""
                        if said.new(part.node, text):
                            batch.append((part.node, text, True))
                    else:
                        said.recovered(part.node.split(SOURCE_SEP)[0])  # node1/glm
                        node = part.node
                        batch.extend([(node, text, False) for text in part.lines])
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                text = _("log stream failed: {error}").format(error=str(exc)
                                                             or type(exc).__name__)
                if said.new("", text):
                    batch.append(("", text, True))
            said.round_over()
            _end_if_cancelled()
            await asyncio.sleep(retry_seconds)
            tail = 0
    finally:
        flusher.cancel()


class _Said:
    """The errors the logs pane was told, per node: each reconnection says a node's
    docker does not answer again, and the pane says it once, again only when it changes
    or after the node recovered (a round without it, or a line from the node)."""

    def __init__(self) -> None:
        self.told: dict[str, str] = {}
        self.heard: set[str] = set()  # the nodes with an error in this round

    def new(self, node: str, text: str) -> bool:
        """Whether to show the gap ``text`` of ``node`` (a plain marker always is)."""
        if not text:
            return True
        self.heard.add(node)
        if self.told.get(node) == text:
            return False
        self.told[node] = text
        return True

    def recovered(self, node: str) -> None:
        self.told.pop(node, None)

    def round_over(self) -> None:
        self.told = {n: t for n, t in self.told.items() if n in self.heard}
        self.heard = set()


async def fresh_health(engine: ClusterView, cluster: str, timeout: float) -> ClusterHealth:
    """A new health check for a confirmation (never the last one shown); raises on failure."""
    try:
        return await within(engine.health(cluster), timeout)
    except TimeoutError:
        raise TimeoutError(_("health check timed out after {s:g} s").format(s=timeout)) from None


def _crashed(step: str, exc: Exception) -> ActionResult:
    return ActionResult(False, None, step, str(exc) or type(exc).__name__)


async def _finished(run_id: int, step: str, work: Awaitable[ActionResult]) -> ActionFinished:
    """The action's result; an engine bug is a failed result at ``step``, not a crash."""
    try:
        result = await work
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        result = _crashed(step, exc)
    return ActionFinished(run_id, result)


async def run_serve(control: ClusterControl, plan: LaunchPlan, sink: ProgressSink,
                    run_id: int, replan: Replan | None = None) -> ActionFinished:
    """``serve`` with every step sent to ``sink``; an engine bug is a failed result."""
    return await _finished(run_id, "serve", control.serve(plan, sink, replan=replan))


async def run_stop(control: ClusterControl, cluster: str, sink: ProgressSink,
                   hooks_for: HooksFor, run_id: int, recipe: str | None = None
                   ) -> ActionFinished:
    """``stop`` of every workload of the cluster (or of ``recipe`` only), then the
    recipes' after_stop hooks."""
    return await _finished(run_id, "stop", control.stop(cluster, sink, recipe=recipe,
                                                        hooks_for=hooks_for))


async def run_restart(control: ClusterControl, plan: LaunchPlan, sink: ProgressSink,
                      hooks_for: HooksFor, run_id: int, replan: Replan | None = None
                      ) -> ActionFinished:
    """``stop`` of the plan's recipe, then ``serve`` of the plan (not after a failed stop)."""
    try:
        result = (await control.restart(plan, sink, hooks_for=hooks_for,
                                        replan=replan)).result()
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        result = _crashed("restart", exc)
    return ActionFinished(run_id, result)


async def read_inspect(engine: ClusterView, cluster: str, node: str,
                       name: str) -> Described | str:
    """A container's inspect, secrets masked; what went wrong, in words, otherwise."""
    try:
        return await engine.inspect(cluster, node, name)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # NodeError: the node or its docker did not answer
        text = getattr(exc, "text", None)
        return f"{node}: {text if isinstance(text, str) else str(exc) or type(exc).__name__}"


async def run_bench(control: ClusterControl, plan: LaunchPlan, settings: BenchSettings,
                    sink: ProgressSink, run_id: int) -> ActionFinished:
    """``bench`` of the recipe ``plan`` serves: load on its head, the run kept."""
    return await _finished(run_id, "bench", control.bench(plan, settings, sink))


async def run_pull(control: ClusterControl, plan: LaunchPlan, parts: PullParts,
                   sink: ProgressSink, transfers: TransferSink, run_id: int) -> ActionFinished:
    """``pull``: the recipe's image and model onto the nodes lacking them."""
    return await _finished(run_id, "pull", control.pull(plan, parts, sink, transfers))


async def run_power(control: ClusterControl, action: str, source: str | None,
                    target: str | None, sink: ProgressSink, run_id: int) -> ActionFinished:
    """Power ``off`` source, ``on`` target or ``switch`` from source to target."""
    try:
        if action == "switch":
            assert source is not None and target is not None
            result = await control.power_switch(source, target, sink)
        elif action == "off":
            assert source is not None
            result = await control.power_off(source, sink)
        else:
            assert target is not None
            result = await control.power_on(target, sink)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # SparkError (no [home_assistant]) or an engine bug
        render = getattr(exc, "render", None)
        result = ActionResult(False, None, "power", render() if callable(render)
                              else str(exc) or type(exc).__name__)
    return ActionFinished(run_id, result)


async def run_supervise(control: ClusterControl, plan: LaunchPlan, recipe_text: str,
                        sink: ProgressSink, run_id: int) -> ActionFinished:
    """The on-node supervisor of ``plan``'s group: installed and holding the lease, or
    why not (its steps go to ``sink``)."""
    try:
        installed = await control.supervise_on_node(plan, recipe_text, sink)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        return ActionFinished(run_id, _crashed("supervise", exc))
    return ActionFinished(run_id, ActionResult(
        installed.ok, None if installed.ok else installed.node,
        None if installed.ok else "supervise", installed.detail or installed.container))


async def run_end_supervision(control: ClusterControl, cluster: str, sink: ProgressSink,
                              run_id: int) -> ActionFinished:
    """End the cluster's supervision; failed when a node could not take the mark. The
    result's detail says what it did and whether the group runs (a fresh read)."""
    try:
        ending = await control.end_supervision(cluster, sink)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        return ActionFinished(run_id, _crashed("supervise", exc))
    missed = ending.missed
    return ActionFinished(run_id, ActionResult(not missed, missed[0] if missed else None,
                                               "supervise" if missed else None,
                                               "; ".join(ending_lines(ending))))


async def run_exec(control: ClusterControl, cluster: str, command: str) -> list[ExecResult]:
    """``command`` on every node of the cluster; a node that cannot run it says why."""
    return await control.exec(cluster, command)
