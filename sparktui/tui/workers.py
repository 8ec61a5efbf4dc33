"""The one module of the TUI that calls the engine.

The app owns the engine object and runs these coroutines as workers; each returns
or hands over small values (messages, ``LogLine``s). No widget imports this module.
In ``--watch`` mode the app only ever holds a :class:`ReadOnlyView`, an object that
has no mutating method to call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from sparktui.engine.api import (
    ActionResult,
    ClusterControl,
    ClusterView,
    ExecResult,
    ProgressSink,
    ReadOnlyView,
)
from sparktui.i18n import _
from sparktui.tui.messages import ActionFinished, HealthFailed, HealthUpdated, TelemetryUpdated

if TYPE_CHECKING:  # annotations only: the app imports this before its first frame
    from sparktui.engine.status import ClusterHealth, LogLine
    from sparktui.plan.after_stop import HooksFor
    from sparktui.plan.model import LaunchPlan

LOG_RETRY_SECONDS = 5.0


def for_mode(engine: ClusterView | ClusterControl | None, watch: bool) -> ClusterView | None:
    """What the app may hold: in watch mode, a view without mutating methods."""
    if engine is None:
        return None
    return ReadOnlyView(engine) if watch else engine


def control_of(engine: ClusterView | None) -> ClusterControl | None:
    """The engine as a ``ClusterControl`` when it is one (never a ``ReadOnlyView``)."""
    if engine is None or isinstance(engine, ReadOnlyView):
        return None
    if all(callable(getattr(engine, name, None)) for name in ("serve", "stop", "exec")):
        return engine  # type: ignore[return-value]
    return None


async def fetch_health(engine: ClusterView, cluster: str,
                       timeout: float) -> HealthUpdated | HealthFailed:
    """One health check, as the message the dashboard handles."""
    try:
        health = await asyncio.wait_for(engine.health(cluster), timeout)
    except TimeoutError:
        return HealthFailed(cluster, _("health check timed out after {s:g} s").format(s=timeout))
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # the engine's bug or outage must not kill the dashboard
        return HealthFailed(cluster, str(exc) or type(exc).__name__)
    return HealthUpdated(health)


async def follow_telemetry(engine: ClusterView, cluster: str,
                           deliver: Callable[[TelemetryUpdated], None], interval: float) -> None:
    """Sample the cluster every ``interval`` seconds, start to start, never overlapping.

    An engine without telemetry (a test double) ends the loop; a failed sample is skipped.
    """
    sample = getattr(engine, "telemetry", None)
    if sample is None:
        return
    loop = asyncio.get_running_loop()
    while True:
        started = loop.time()
        try:
            frame = await asyncio.wait_for(sample(cluster), max(interval * 5, 10.0))
        except asyncio.CancelledError:
            raise
        except NotImplementedError:
            return  # a read-only view over an engine that does not sample
        except Exception:  # a failed sample must not end the dashboard
            frame = None
        if frame is not None:
            deliver(TelemetryUpdated(frame))
        await asyncio.sleep(max(0.05, interval - (loop.time() - started)))


async def deep_check(engine: ClusterView, cluster: str) -> tuple[bool, str]:
    """The on-demand readiness tier: (passed, one line for a notification)."""
    check = getattr(engine, "deep_check", None)
    try:
        result = await check(cluster) if check is not None else None
    except NotImplementedError:  # a read-only view over an engine without the check
        result = None
    except Exception as exc:  # the engine's bug must not end the dashboard
        return False, _("deep check failed: {error}").format(error=str(exc) or type(exc).__name__)
    if result is None:
        return False, _("deep check: nothing serves on {cluster}").format(cluster=cluster)
    if result.ok:
        return True, _("deep check: one-token completion in {ms:.0f} ms").format(
            ms=result.latency_ms or 0)
    return False, _("deep check failed: {error}").format(error=result.error or result.status)


async def follow_logs(engine: ClusterView, cluster: str,
                      sink: Callable[[list[LogLine]], None], *, tail: int = 200,
                      retry_seconds: float = LOG_RETRY_SECONDS) -> None:
    """Feed every line of the cluster's logs to ``sink``; reconnect when the stream ends.

    ``sink`` only appends to a buffer: the app flushes it as ``LogsArrived`` messages.
    """
    from sparktui.engine.status import LogLine

    while True:
        try:
            async for batch in engine.log_batches(cluster, tail=tail, follow=True):
                if batch.gap:
                    sink([LogLine(batch.node, batch.lines[0] if batch.lines else "", True)])
                else:
                    sink([LogLine(batch.node, text) for text in batch.lines])
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            sink([LogLine(node="", text=_("log stream failed: {error}").format(
                error=str(exc) or type(exc).__name__), gap=True)])
        await asyncio.sleep(retry_seconds)
        tail = 0


async def fresh_health(engine: ClusterView, cluster: str, timeout: float) -> ClusterHealth:
    """A new health check for a confirmation (never the last one shown); raises on failure."""
    try:
        return await asyncio.wait_for(engine.health(cluster), timeout)
    except TimeoutError:
        raise TimeoutError(_("health check timed out after {s:g} s").format(s=timeout)) from None


def _crashed(step: str, exc: Exception) -> ActionResult:
    return ActionResult(False, None, step, str(exc) or type(exc).__name__)


async def run_serve(control: ClusterControl, plan: LaunchPlan, sink: ProgressSink,
                    run_id: int) -> ActionFinished:
    """``serve`` with every step sent to ``sink``; an engine bug is a failed result."""
    try:
        result = await control.serve(plan, sink)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        result = _crashed("serve", exc)
    return ActionFinished(run_id, result)


async def run_stop(control: ClusterControl, cluster: str, sink: ProgressSink,
                   hooks_for: HooksFor, run_id: int) -> ActionFinished:
    """``stop`` of every workload of the cluster, then the recipes' after_stop hooks."""
    try:
        result = await control.stop(cluster, sink, hooks_for=hooks_for)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        result = _crashed("stop", exc)
    return ActionFinished(run_id, result)


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


async def run_exec(control: ClusterControl, cluster: str, command: str) -> list[ExecResult]:
    """``command`` on every node of the cluster; a node that cannot run it says why."""
    return await control.exec(cluster, command)
