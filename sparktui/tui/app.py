"""The dashboard app: owns the config, the engine and the workers that call it.

* ``MUTATING_ACTIONS`` is the one list of actions that change a cluster; ``check_action``
  refuses them in ``--watch`` mode, so they are not bound, not in the footer, the help or
  the command palette. The engine a watch app holds has no mutating method either.
* Workers (``sparktui.tui.workers``) call the engine and post small messages to the
  dashboard screen, whose handlers update the panes.
* Serve, stop, exec and tmux pass ``_mutating`` (which hands out the engine as a
  ``ClusterControl``), then ``sparktui.tui.flows`` runs their screens and workers.
* Build it with :func:`create_app` (tests pass a fixed clock); ``run_app`` is the CLI's.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path

from textual import on
from textual.app import App
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer

from sparktui.config import LoadedConfig
from sparktui.engine.api import ClusterControl, ClusterView
from sparktui.engine.status import ClusterHealth, LogLine
from sparktui.errors import SparkError
from sparktui.i18n import _
from sparktui.tui import workers
from sparktui.tui.commands import SparkCommands
from sparktui.tui.flows import ActionFlows
from sparktui.tui.live import FileWatch, config_path
from sparktui.tui.messages import (
    ActionFinished,
    ActionProgress,
    ClusterFocused,
    HealthUpdated,
    LogsArrived,
)
from sparktui.tui.options import TuiOptions
from sparktui.tui.screens.dashboard import DashboardScreen
from sparktui.tui.screens.error import ConfigErrorScreen
from sparktui.tui.screens.help import HelpScreen, help_rows

MUTATING_ACTIONS: frozenset[str] = frozenset({"serve", "stop", "exec", "tmux", "power"})
"""Actions that change a cluster. Never bound in --watch mode."""

DASHBOARD_ACTIONS = frozenset({"refresh", "progress", *MUTATING_ACTIONS})
"""App actions that need the dashboard (not the config error screen)."""
LOG_FLUSH_SECONDS = 0.05
ENGINE_CLOSE_SECONDS = 5.0


class SparkApp(App[int]):
    TITLE = "sparktui"
    CSS_PATH = "app.tcss"
    COMMANDS = App.COMMANDS | {SparkCommands}
    BINDINGS = [
        Binding("q", "quit", _("Quit"), id="quit"),
        Binding("question_mark", "help", _("Help"), id="help"),
        Binding("r", "refresh", _("Refresh"), id="refresh"),
        Binding("s", "serve", _("Serve"), id="serve"),
        Binding("x", "stop", _("Stop"), id="stop"),
        Binding("e", "exec", _("Exec"), id="exec"),
        Binding("t", "tmux", _("Tmux"), id="tmux"),
        Binding("p", "power", _("Power"), id="power"),
        Binding("o", "progress", _("Progress"), id="progress"),
        Binding("ctrl+p", "command_palette", _("Commands"), show=False, priority=True,
                id="palette"),
        Binding("colon", "command_palette", _("Commands"), show=False, id="palette.colon"),
    ]

    def __init__(self, config: LoadedConfig | SparkError, recipes_dir: Path,
                 engine: ClusterView | ClusterControl | None, *, watch: bool = False,
                 options: TuiOptions | None = None,
                 reload_config: Callable[[], LoadedConfig] | None = None) -> None:
        super().__init__()
        self.config = config
        self.recipes_dir = recipes_dir
        self.watch = watch
        self.options = options or TuiOptions()
        self.engine: ClusterView | None = workers.for_mode(engine, watch)
        self.cluster = ""
        self.action_log: list[str] = []
        self.dashboard: DashboardScreen | None = None
        self._reload_config = reload_config
        self._refresh_timer: Timer | None = None
        self._log_inbox: list[LogLine] = []
        self.file_watch = FileWatch(config_path(config), recipes_dir)
        self.flows = ActionFlows(self)
        self._quit_armed = False
        if not self.options.animations:
            self.animation_level = "none"

    # -- screens ----------------------------------------------------------------------------

    def _first_screen(self) -> Screen:
        if isinstance(self.config, SparkError):
            return ConfigErrorScreen(self.config.problems,
                                     self.reload_config if self._reload_config else None)
        self.dashboard = self._new_dashboard(self.config)
        return self.dashboard

    def _new_dashboard(self, config: LoadedConfig) -> DashboardScreen:
        dashboard = DashboardScreen(config, self.recipes_dir, watch=self.watch,
                                    connected=self.engine is not None, options=self.options)
        if any(c.name == self.cluster for c in config.config.clusters):
            dashboard.cluster = self.cluster  # a reload keeps the cluster in focus
        if self.dashboard is not None:
            dashboard.recipe = self.dashboard.recipe  # and the recipe under the cursor
        return dashboard

    def reload_config(self, live: bool = False) -> None:
        """Load the config again and rebuild the dashboard (the engine keeps running).

        ``live``: the file changed under a running dashboard; if it does not load, the
        dashboard stays on the config it has and a notification says what is wrong.
        """
        assert self._reload_config is not None
        try:
            self.config = self._reload_config()
        except SparkError as exc:
            if live and self.dashboard is not None and self.dashboard in self.screen_stack:
                self.notify("\n".join(p.render() for p in exc.problems[:3]),
                            title=_("config not reloaded"), severity="error", timeout=10)
                return
            self.config = exc
            self.switch_screen(ConfigErrorScreen(exc.problems, self.reload_config))
            self.notify(_("the config still has problems"), severity="error")
            return
        self.dashboard = self._new_dashboard(self.config)
        self.switch_screen(self.dashboard)

    def on_mount(self) -> None:
        # Pushed over the (blank) default screen so a config reload can switch_screen it.
        self.push_screen(self._first_screen())
        if self.engine is not None:
            self.set_interval(LOG_FLUSH_SECONDS, self._drain_logs)
        if self.watch:
            self.set_interval(self.options.cycle_seconds, self._cycle_cluster)
        self.set_interval(self.options.reload_seconds, self._poll_files)

    def _poll_files(self) -> None:
        """Live reload of edits on disk; nothing moves under a modal (seen once it closes)."""
        if not self.screen_stack or self.screen.is_modal:
            return
        if self.dashboard is not None and not self.dashboard.is_mounted:
            return  # a reload is still building it
        changes = self.file_watch.poll()
        if changes.config and self._reload_config is not None:
            self.reload_config(live=True)  # the new dashboard reads the recipes as well
        elif changes.recipes and self.dashboard is not None:
            self.dashboard.reload_recipes()

    async def on_unmount(self) -> None:
        if self.engine is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.engine.close(), ENGINE_CLOSE_SECONDS)

    def cluster_names(self) -> list[str]:
        return [c.name for c in self.dashboard.clusters] if self.dashboard else []

    # -- safety: one place decides what may run -----------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in MUTATING_ACTIONS and self.watch:
            return False
        if action == "progress" and self.flows.run is None:
            return False  # nothing to show: not bound, not in the footer
        return not (action in DASHBOARD_ACTIONS and (self.dashboard is None
                                                     or self.dashboard not in self.screen_stack))

    # -- the cluster in focus and the workers ----------------------------------------------------

    @on(ClusterFocused)
    def _on_cluster_focused(self, message: ClusterFocused) -> None:
        self.focus_cluster(message.cluster)

    def focus_cluster(self, name: str) -> None:
        """Show a cluster and point the workers at it."""
        if self.dashboard is None:
            return
        self.cluster = name
        self.dashboard.show_cluster(name)
        self.dashboard.clusters_pane.select_cluster_line(name)
        if self.engine is None:
            return
        self._log_inbox = inbox = []
        self.run_worker(workers.follow_logs(self.engine, name, inbox.extend), group="logs",
                        exclusive=True, exit_on_error=False)
        self.refresh_now()

    def refresh_now(self) -> None:
        if self.engine is None or not self.cluster:
            return
        if self._refresh_timer is not None:
            self._refresh_timer.stop()
        self.run_worker(self._refresh(self.engine, self.cluster), group="health",
                        exclusive=True, exit_on_error=False)

    async def _refresh(self, engine: ClusterView, cluster: str) -> None:
        """One check, then the next is armed: refreshes never overlap."""
        message = await workers.fetch_health(engine, cluster, self.options.health_timeout)
        self._deliver(message)
        if self._refresh_timer is not None:
            self._refresh_timer.stop()
        self._refresh_timer = self.set_timer(self.options.refresh_seconds, self._refresh_due)

    def _refresh_due(self) -> None:
        if not self.screen_stack:  # shutting down
            return
        if self.screen.is_modal:  # nothing redraws under a modal; check again later
            self._refresh_timer = self.set_timer(self.options.refresh_seconds,
                                                 self._refresh_due)
            return
        self.refresh_now()

    def _drain_logs(self) -> None:
        if self._log_inbox:
            lines = self._log_inbox[:]
            self._log_inbox.clear()
            self._deliver(LogsArrived(self.cluster, lines))

    def _deliver(self, message: Message) -> None:
        if self.dashboard is not None:
            self.dashboard.post_message(message)

    def _cycle_cluster(self) -> None:
        names = self.cluster_names()
        if len(names) < 2 or not self.screen_stack or self.screen.is_modal:
            return
        at = names.index(self.cluster) if self.cluster in names else -1
        self.focus_cluster(names[(at + 1) % len(names)])

    # -- actions ----------------------------------------------------------------------------

    def action_help(self) -> None:
        self.push_screen(HelpScreen(help_rows(self, self.dashboard), read_only=self.watch))

    def action_refresh(self) -> None:
        self.action_log.append("refresh")
        if self.dashboard is not None:
            self.dashboard.reload_recipes()
        if self.engine is None:
            self.notify(_("recipes reloaded; not connected to the cluster"), timeout=3)
        else:
            self.refresh_now()

    def action_serve(self) -> None:
        preview = self.dashboard.current_preview() if self.dashboard else None
        if preview is None or not preview.ok:
            self.notify(_("pick a recipe whose plan fits this cluster"), severity="warning")
            return
        control = self._mutating("serve")
        if control is not None and self.dashboard is not None and self.dashboard.recipe:
            assert isinstance(self.config, LoadedConfig)
            self.flows.serve(control, self.config, self.dashboard.recipe, self.cluster)

    def action_stop(self) -> None:
        control = self._mutating("stop")
        if control is not None and self.cluster:
            self.flows.stop(control, self.cluster)

    def action_exec(self) -> None:
        control = self._mutating("exec")
        if control is not None and self.cluster:
            assert isinstance(self.config, LoadedConfig)
            self.flows.exec(control, self.config, self.cluster)

    def action_tmux(self) -> None:
        if self._mutating("tmux") is not None and self.cluster:
            assert isinstance(self.config, LoadedConfig)
            self.flows.tmux(self.config, self.cluster, self._selected_node())

    def action_power(self) -> None:
        if self._mutating("power") is not None:
            self.notify(_("power is not wired into the dashboard yet"), severity="warning")

    def action_progress(self) -> None:
        self.flows.show_progress()

    async def action_quit(self) -> None:
        if self.flows.busy and not self._quit_armed:
            self._quit_armed = True
            self.notify(_("a {action} is running: quitting cancels it halfway. Press q again "
                          "to quit anyway.").format(action=self.flows.run.action),
                        severity="warning")
            return
        await super().action_quit()

    def _mutating(self, action: str) -> ClusterControl | None:
        """Every mutating action passes here; watch mode never gets this far."""
        if self.watch or action not in MUTATING_ACTIONS:
            self.action_log.append(f"refused:{action}")
            return None
        self.action_log.append(action)
        control = workers.control_of(self.engine)
        if control is None:
            self.notify(_("{action} needs a connected engine").format(action=action),
                        severity="warning")
        return control

    def _selected_node(self) -> str | None:
        """The node under the cursor: the cluster tree's line, else the nodes table's row."""
        if self.dashboard is None:
            return None
        ref = self.dashboard.clusters_pane.current()
        if self.focused is self.dashboard.clusters_pane.tree and ref is not None \
                and ref.node is not None and ref.cluster == self.cluster:
            return ref.node
        return self.dashboard.nodes.current_node()

    async def fresh_health(self, cluster: str) -> ClusterHealth:
        """A new health check through the app's engine (for a confirmation); the dashboard
        shows it too."""
        assert self.engine is not None
        health = await workers.fresh_health(self.engine, cluster, self.options.health_timeout)
        self._deliver(HealthUpdated(health))
        return health

    def offers(self, action: str) -> bool:
        """Whether the command palette lists a cluster action now (after ``check_action``)."""
        if self.dashboard is None:
            return True
        if action == "serve":
            preview = self.dashboard.current_preview()
            return preview is not None and preview.ok
        if action == "tmux":
            health = self.dashboard.health.get(self.cluster)
            return health is None or any(w.runtime == "tmux" for w in health.workloads)
        return True

    @on(ActionProgress)
    def _on_action_progress(self, message: ActionProgress) -> None:
        self.flows.progress(message)

    @on(ActionFinished)
    def _on_action_finished(self, message: ActionFinished) -> None:
        self.flows.finished(message)


def create_app(config: LoadedConfig | SparkError, recipes_dir: Path,
               engine: ClusterView | ClusterControl | None, watch: bool, *,
               options: TuiOptions | None = None,
               reload_config: Callable[[], LoadedConfig] | None = None) -> SparkApp:
    """The app from plain values; tests pass a fixed ``options.clock``."""
    return SparkApp(config, recipes_dir, engine, watch=watch, options=options,
                    reload_config=reload_config)


def run_app(args: argparse.Namespace) -> int:
    """The CLI's entry: load config and recipes like every command does, then run."""
    from sparktui.config import find_config, load_config, recipe_dirs
    from sparktui.engine.cluster import ClusterEngine

    def load() -> LoadedConfig:
        return load_config(find_config(args.config))

    try:
        config: LoadedConfig | SparkError = load()
    except SparkError as exc:
        config = exc
    engine = ClusterEngine(config.config) if isinstance(config, LoadedConfig) else None
    app = create_app(config, recipe_dirs(args.recipes), engine=engine, watch=bool(args.watch),
                     reload_config=load)
    app.run()
    return app.return_code or 0
