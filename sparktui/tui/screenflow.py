"""Which screen the session's config calls for, and the reload that builds them again.

The start-up skeleton while the config loads (after the first frame), then the dashboard
or the config error screen. A reload (``r`` on the error screen, or an edit on disk that
:meth:`ScreenFlow.poll_files` notices) loads the config again and builds a new dashboard
on it, which keeps the cluster in focus and the recipe under the cursor; a changed config
gets a new engine, and the old one is closed once no action holds it. The app owns one
:class:`ScreenFlow`; it holds the dashboard shown now (``SparkApp.dashboard``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from sparktui.config.loaded import LoadedConfig
from sparktui.errors import SparkError
from sparktui.i18n import _
from sparktui.tui.readers import ReadWorkers
from sparktui.tui.screens.error import ConfigErrorScreen
from sparktui.tui.screens.startup import StartupScreen
from sparktui.tui.session import Session, close_engine

if TYPE_CHECKING:  # loaded after the first frame
    from sparktui.engine.api import ClusterControl
    from sparktui.tui.app import SparkApp
    from sparktui.tui.screens.dashboard import DashboardScreen


class ScreenFlow:
    def __init__(self, app: SparkApp, session: Session, readers: ReadWorkers,
                 busy: Callable[[], bool]) -> None:
        self._app = app  # switches the screens; the dashboards' host
        self._session = session
        self._readers = readers
        self._busy = busy  # an action runs (and may hold the engine)
        self.dashboard: DashboardScreen | None = None
        """The dashboard of the config loaded last (None before one loaded)."""

    def first(self) -> Screen[Any]:
        """The screen for the config's state now."""
        session = self._session
        if (pending := session.pending) is not None:
            return StartupScreen(pending.clusters, watch_mode=session.watch_mode)
        if (error := session.error) is not None:
            return ConfigErrorScreen(error.problems, self.reload if session.can_reload else None)
        self.dashboard = self._new_dashboard()
        return self.dashboard

    def _new_dashboard(self) -> DashboardScreen:
        """A dashboard on the session's config; a reload keeps the cluster in focus and the
        recipe under the cursor."""
        from sparktui.tui.screens.dashboard import DashboardScreen

        old = self.dashboard
        return DashboardScreen(self._session, self._app, cluster=old.cluster if old else "",
                               recipe=old.recipe if old else None)

    def started(self, config: LoadedConfig | SparkError,
                engine: ClusterControl | None) -> None:
        """The start-up load is done: the dashboard (or the error screen) replaces the
        skeleton, and the engine starts its work."""
        app = self._app
        if app.screen.is_modal:  # help or the palette over the skeleton: swap once it closes
            app.set_timer(0.1, partial(self.started, config, engine))
            return
        self._session.started(config, engine)
        app.switch_screen(self.first())

    def reload(self, live: bool = False) -> None:
        """Load the config again and rebuild the dashboard (and the engine, if the config
        changed).

        ``live``: the file changed under a running dashboard; if it does not load, the
        dashboard stays on the config it has and a notification says what is wrong.
        """
        app = self._app
        try:
            replaced = self._session.reload()
        except SparkError as exc:
            if live and self.dashboard is not None and self.dashboard in app.screen_stack:
                app.notify("\n".join(p.render() for p in exc.problems[:3]),
                           title=_("config not reloaded"), severity="error", timeout=10)
                return
            self._session.broke(exc)
            app.switch_screen(ConfigErrorScreen(exc.problems, self.reload))
            app.notify(_("the config still has problems"), severity="error")
            return
        if replaced is not None:  # the new dashboard restarts the readers on the new engine
            self._readers.cancel()
            self.close_retired()
        self.dashboard = self._new_dashboard()
        app.switch_screen(self.dashboard)

    def close_retired(self) -> None:
        """Close the engines of an older config, once no serve, stop or power holds one."""
        for engine in self._session.to_close(busy=self._busy()):
            self._app.run_worker(close_engine(engine), group="retire", exit_on_error=False)

    def poll_files(self) -> None:
        """Live reload of edits on disk; nothing moves under a modal (seen once it closes)."""
        app = self._app
        if not app.is_running:  # shutting down: the screens are taken apart (seen under load)
            return
        if not app.screen_stack or app.screen.is_modal or self._session.pending is not None:
            return
        if self.dashboard is not None and not self.dashboard.is_mounted:
            return  # a reload is still building it
        changes = self._session.file_watch.poll()
        if changes.config and self._session.can_reload:
            self.reload(live=True)  # the new dashboard reads the recipes as well
        elif changes.recipes and self.dashboard is not None:
            self.dashboard.reload_recipes()
