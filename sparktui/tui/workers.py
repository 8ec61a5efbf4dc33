"""The one module of the TUI that calls the engine.

The app owns the engine object and runs these coroutines as workers; each returns
or hands over small values (messages, ``LogLine``s). No widget imports this module.
In ``--watch`` mode the app only ever holds a :class:`ReadOnlyView`, an object that
has no mutating method to call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from sparktui.engine.api import ClusterControl, ClusterView, ReadOnlyView
from sparktui.engine.status import LogLine
from sparktui.i18n import _
from sparktui.tui.messages import HealthFailed, HealthUpdated

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


async def follow_logs(engine: ClusterView, cluster: str,
                      sink: Callable[[list[LogLine]], None], *, tail: int = 200,
                      retry_seconds: float = LOG_RETRY_SECONDS) -> None:
    """Feed every line of the cluster's logs to ``sink``; reconnect when the stream ends.

    ``sink`` only appends to a buffer: the app flushes it as ``LogsArrived`` messages.
    """
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
