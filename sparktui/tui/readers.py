"""The read workers: what the dashboard shows of the cluster in focus, kept fresh.

A health check every ``refresh_seconds`` (one at a time: the next is armed when one ends,
and none runs under a modal), the log stream and the telemetry samples. They run as the
app's workers on the session's engine and post what they read to the dashboard as
messages (``sparktui.tui.workers`` makes them); nothing here holds what they read.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.message import Message
from textual.timer import Timer
from textual.worker import WorkType

from sparktui.tui.messages import HealthUpdated
from sparktui.tui.session import Session

if TYPE_CHECKING:  # the engine's API and its callers load after the first frame
    from sparktui.engine.api import ClusterHealth, ClusterView

READ_GROUPS = ("health", "logs", "telemetry")
"""Worker groups that read through the engine; an action's group ("action") is never
cancelled. Their work is given as a callable, so a worker replaced before it started
leaves no coroutine that was never awaited."""


def _deferred(work: Callable[..., Awaitable[None]],
              *args: Any) -> WorkType[None]:
    """The worker's coroutine, made only when the worker starts."""
    async def run() -> None:
        await work(*args)
    return run


class ReadWorkers:
    def __init__(self, app: App[Any], session: Session, focus: Callable[[], str],
                 deliver: Callable[[Message], None]) -> None:
        self._app = app
        self._session = session
        self._focus = focus  # the cluster in focus now (the dashboard's selection)
        self._deliver = deliver  # to the dashboard shown now
        self._refresh_timer: Timer | None = None

    def follow(self, cluster: str) -> None:
        """Point the logs and the telemetry at ``cluster``, and check its health now."""
        engine = self._session.engine
        if engine is None:
            return
        from sparktui.tui import workers

        self._app.run_worker(_deferred(workers.follow_logs, engine, cluster, self._deliver),
                             group="logs", exclusive=True, exit_on_error=False)
        interval = self._session.telemetry_interval
        if interval is not None:
            self._app.run_worker(_deferred(workers.follow_telemetry, engine, cluster,
                                           self._deliver, interval),
                                 group="telemetry", exclusive=True, exit_on_error=False)
        self.refresh_now()

    def refresh_now(self) -> None:
        """A health check of the cluster in focus now (the one under way is replaced)."""
        engine, cluster = self._session.engine, self._focus()
        if engine is None or not cluster:
            return
        if self._refresh_timer is not None:
            self._refresh_timer.stop()
        self._app.run_worker(_deferred(self._refresh, engine, cluster), group="health",
                             exclusive=True, exit_on_error=False)

    def cancel(self) -> None:
        """Stop every read worker (their engine is retired; the new dashboard restarts them)."""
        for group in READ_GROUPS:
            self._app.workers.cancel_group(self._app, group)

    async def _refresh(self, engine: ClusterView, cluster: str) -> None:
        """One check, then the next is armed: refreshes never overlap."""
        from sparktui.tui import workers

        message = await workers.fetch_health(engine, cluster,
                                             self._session.options.health_timeout)
        self._deliver(message)
        if self._refresh_timer is not None:
            self._refresh_timer.stop()
        self._refresh_timer = self._app.set_timer(self._session.options.refresh_seconds,
                                                  self._refresh_due)

    def _refresh_due(self) -> None:
        app = self._app
        if not app.screen_stack:  # shutting down
            return
        if app.screen.is_modal:  # nothing redraws under a modal; check again later
            self._refresh_timer = app.set_timer(self._session.options.refresh_seconds,
                                                self._refresh_due)
            return
        self.refresh_now()

    async def fresh_health(self, cluster: str) -> ClusterHealth:
        """A new health check for a confirmation (raises on failure); the dashboard shows
        it too."""
        engine = self._session.engine
        assert engine is not None
        from sparktui.tui import workers

        health = await workers.fresh_health(engine, cluster, self._session.options.health_timeout)
        self._deliver(HealthUpdated(health))
        return health

    def deep_check(self, cluster: str) -> None:
        """The third readiness tier on demand: a one-token completion on the head."""
        engine = self._session.engine
        if engine is not None:
            self._app.run_worker(_deferred(self._deep_check, engine, cluster), group="deep",
                                 exclusive=True, exit_on_error=False)

    async def _deep_check(self, engine: ClusterView, cluster: str) -> None:
        from sparktui.tui import workers

        ok, line = await workers.deep_check(engine, cluster)
        self._app.notify(line, severity="information" if ok else "error", timeout=8)
