"""The dashboard app: owns the config, the engine and the workers that call it.

* ``MUTATING_ACTIONS`` is the one list of actions that change a cluster; ``check_action``
  refuses them in ``--watch`` mode, so they are not bound, not in the footer, the help or
  the command palette. The engine a watch app holds has no mutating method either.
* Workers (``sparktui.tui.workers``) call the engine and post small messages to the
  dashboard screen, whose handlers update the panes.
* Serve, stop, power, exec and tmux pass ``_mutating`` (which hands out the engine as a
  ``ClusterControl``), then ``sparktui.tui.flows`` runs their screens and workers.
* A config reload rebuilds the engine (``engine_factory``) when the config changed, so a
  new cluster or node works without a restart; the old engine is closed once no action
  holds it.
* Build it with :func:`create_app` (tests pass a fixed clock); ``run_app`` is the CLI's.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on
from textual.app import App
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer

from sparktui.config.loaded import LoadedConfig
from sparktui.engine.api import ClusterControl, ClusterView
from sparktui.errors import SparkError
from sparktui.i18n import _
from sparktui.tui import workers
from sparktui.tui.commands import SparkCommands
from sparktui.tui.live import FileWatch, config_path
from sparktui.tui.markup import SafeText
from sparktui.tui.messages import (
    ActionFinished,
    ActionProgress,
    ClusterFocused,
    HealthUpdated,
    LogsArrived,
)
from sparktui.tui.options import TuiOptions
from sparktui.tui.power_actions import PowerActions
from sparktui.tui.screens.error import ConfigErrorScreen
from sparktui.tui.startup import PendingConfig, StartupScreen, finish_start

if TYPE_CHECKING:  # loaded after the first frame (sparktui.tui.startup)
    from sparktui.engine.status import ClusterHealth, LogLine
    from sparktui.tui.flows import ActionFlows
    from sparktui.tui.screens.dashboard import DashboardScreen

MUTATING_ACTIONS: frozenset[str] = frozenset({"serve", "stop", "exec", "tmux", "power",
                                              "power_on", "power_off", "power_switch"})
"""Actions that change a cluster. Never bound in --watch mode."""

EngineFactory = Callable[[LoadedConfig], "ClusterView | ClusterControl"]
"""Builds the engine for a config: again when a reload changed the config."""

DASHBOARD_ACTIONS = frozenset({"refresh", "progress", "deep_check", *MUTATING_ACTIONS})
"""App actions that need the dashboard (not the config error screen)."""
LOG_FLUSH_SECONDS = 0.05
ENGINE_CLOSE_SECONDS = 5.0
READ_GROUPS = ("health", "logs", "telemetry")
"""Worker groups that read through the engine; an action's group ("action") is never
cancelled."""


class SparkApp(SafeText, PowerActions, App[int]):
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
        Binding("D", "deep_check", _("Deep check"), show=False, id="deep_check"),
        Binding("ctrl+p", "command_palette", _("Commands"), show=False, priority=True,
                id="palette"),
        Binding("colon", "command_palette", _("Commands"), show=False, id="palette.colon"),
    ]

    def __init__(self, config: LoadedConfig | SparkError | PendingConfig, recipes_dir: Path,
                 engine: ClusterView | ClusterControl | None, *, watch: bool = False,
                 options: TuiOptions | None = None,
                 reload_config: Callable[[], LoadedConfig] | None = None,
                 engine_factory: EngineFactory | None = None) -> None:
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
        self._engine_factory = engine_factory or (config.connect if isinstance(
            config, PendingConfig) else None)
        self._retired: list[ClusterView] = []  # engines of an older config, to close
        self._refresh_timer: Timer | None = None
        self._log_inbox: list[LogLine] = []
        self.file_watch = FileWatch(config.path if isinstance(config, PendingConfig)
                                    else config_path(config), recipes_dir)
        self._flows: ActionFlows | None = None
        self._quit_armed = False
        if not self.options.animations:
            self.animation_level = "none"

    # -- screens ----------------------------------------------------------------------------

    def _first_screen(self) -> Screen:
        if isinstance(self.config, PendingConfig):
            return StartupScreen(self.config.clusters, watch=self.watch)
        if isinstance(self.config, SparkError):
            return ConfigErrorScreen(self.config.problems,
                                     self.reload_config if self._reload_config else None)
        self.dashboard = self._new_dashboard(self.config)
        return self.dashboard

    def _new_dashboard(self, config: LoadedConfig) -> DashboardScreen:
        from sparktui.tui.screens.dashboard import DashboardScreen

        dashboard = DashboardScreen(config, self.recipes_dir, watch=self.watch,
                                    connected=self.engine is not None, options=self.options)
        if any(c.name == self.cluster for c in config.config.clusters):
            dashboard.cluster = self.cluster  # a reload keeps the cluster in focus
        if self.dashboard is not None:
            dashboard.recipe = self.dashboard.recipe  # and the recipe under the cursor
        return dashboard

    def reload_config(self, live: bool = False) -> None:
        """Load the config again and rebuild the dashboard (and the engine, if the config
        changed).

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
        self._rebuild_engine(self.config)
        self.dashboard = self._new_dashboard(self.config)
        self.switch_screen(self.dashboard)

    def _rebuild_engine(self, config: LoadedConfig) -> None:
        """A new engine for a changed config (a new cluster, node, timeout or key); the
        old one is closed once no serve, stop or power holds it."""
        if self._engine_factory is None:
            return
        old = self.engine
        built_for = getattr(getattr(old, "_engine", old), "config", None)
        if old is not None and built_for == config.config:
            return
        had_engine = old is not None
        self.engine = workers.for_mode(self._engine_factory(config), self.watch)
        if old is not None:
            for group in READ_GROUPS:  # the new dashboard restarts them on the new engine
                self.workers.cancel_group(self, group)
            self._retired.append(old)
            self._close_retired()
        if not had_engine and self.engine is not None:  # the config was broken at start
            self.set_interval(LOG_FLUSH_SECONDS, self._drain_logs)

    def _close_retired(self) -> None:
        if self._retired and not (self._flows is not None and self._flows.busy):
            retired, self._retired = self._retired, []
            for engine in retired:
                self.run_worker(self._close_engine(engine), group="retire",
                                exit_on_error=False)

    @staticmethod
    async def _close_engine(engine: ClusterView) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(engine.close(), ENGINE_CLOSE_SECONDS)

    def on_mount(self) -> None:
        # Pushed over the (blank) default screen so a config reload can switch_screen it.
        self.push_screen(self._first_screen())
        if isinstance(self.config, PendingConfig):  # load it once the first frame is out
            self.call_after_refresh(self._start_loading, self.config)
        if self.engine is not None:
            self.set_interval(LOG_FLUSH_SECONDS, self._drain_logs)
        if self.watch:
            self.set_interval(self.options.cycle_seconds, self._cycle_cluster)
        self.set_interval(self.options.reload_seconds, self._poll_files)

    def _poll_files(self) -> None:
        """Live reload of edits on disk; nothing moves under a modal (seen once it closes)."""
        if not self.screen_stack or self.screen.is_modal or isinstance(self.config,
                                                                       PendingConfig):
            return
        if self.dashboard is not None and not self.dashboard.is_mounted:
            return  # a reload is still building it
        changes = self.file_watch.poll()
        if changes.config and self._reload_config is not None:
            self.reload_config(live=True)  # the new dashboard reads the recipes as well
        elif changes.recipes and self.dashboard is not None:
            self.dashboard.reload_recipes()

    async def on_unmount(self) -> None:
        for engine in [*self._retired, *([self.engine] if self.engine is not None else [])]:
            await self._close_engine(engine)

    def _start_loading(self, pending: PendingConfig) -> None:
        self.run_worker(finish_start(self, pending), group="startup")

    def config_loaded(self, config: LoadedConfig | SparkError,
                      engine: ClusterView | ClusterControl | None) -> None:
        """The start-up load is done: the dashboard (or the error screen) replaces the
        skeleton, and the engine starts its work."""
        if self.screen.is_modal:  # help or the palette over the skeleton: swap once it closes
            self.set_timer(0.1, partial(self.config_loaded, config, engine))
            return
        self.config = config
        self.engine = workers.for_mode(engine, self.watch)
        if self.engine is not None:
            self.set_interval(LOG_FLUSH_SECONDS, self._drain_logs)
        self.switch_screen(self._first_screen())

    @property
    def flows(self) -> ActionFlows:
        """The action flows, built on first use (their screens are not in the first frame)."""
        if self._flows is None:
            from sparktui.tui.flows import ActionFlows

            self._flows = ActionFlows(self)
        return self._flows

    def cluster_names(self) -> list[str]:
        return [c.name for c in self.dashboard.clusters] if self.dashboard else []

    # -- safety: one place decides what may run -----------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in MUTATING_ACTIONS and self.watch:
            return False
        if action == "progress" and (self._flows is None or self._flows.run is None):
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
        if not self.dashboard.is_mounted or self.dashboard not in self.screen_stack:
            # a reload is building it (it focuses on mount), or the app is closing
            if self.dashboard.cluster_config(name) is not None:
                self.dashboard.cluster = name
            return
        self.dashboard.show_cluster(name)
        self.dashboard.clusters_pane.select_cluster_line(name)
        if self.engine is None:
            return
        self._log_inbox = inbox = []
        self.run_worker(workers.follow_logs(self.engine, name, inbox.extend), group="logs",
                        exclusive=True, exit_on_error=False)
        if isinstance(self.config, LoadedConfig):
            interval = self.config.config.telemetry_interval_seconds
            self.run_worker(workers.follow_telemetry(self.engine, name, self._deliver, interval),
                            group="telemetry", exclusive=True, exit_on_error=False)
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
        from sparktui.tui.screens.help import HelpScreen, help_rows

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

    def action_deep_check(self) -> None:
        """The third readiness tier on demand: a one-token completion on the head."""
        if self.engine is not None and self.cluster:
            self.action_log.append("deep_check")
            self.run_worker(self._deep_check(self.engine, self.cluster), group="deep",
                            exclusive=True, exit_on_error=False)

    async def _deep_check(self, engine: ClusterView, cluster: str) -> None:
        ok, line = await workers.deep_check(engine, cluster)
        self.notify(line, severity="information" if ok else "error", timeout=8)

    def action_progress(self) -> None:
        self.flows.show_progress()

    async def action_quit(self) -> None:
        if self.flows.busy and not self._quit_armed:
            self._quit_armed = True
            self.notify(_("a {action} is running: quitting cancels it halfway. Press q again "
                          "to quit anyway.").format(action=self.flows.run.label),
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
            from sparktui.tui.actions import action_label

            self.notify(_("{action} needs a connected engine").format(action=action_label(action)),
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
        if action == "power_switch":
            return len(self.cluster_names()) > 1
        return True

    @on(ActionProgress)
    def _on_action_progress(self, message: ActionProgress) -> None:
        self.flows.progress(message)

    @on(ActionFinished)
    def _on_action_finished(self, message: ActionFinished) -> None:
        self.flows.finished(message)
        self._close_retired()  # an engine the action held, from before a config reload


def create_app(config: LoadedConfig | SparkError | PendingConfig, recipes_dir: Path,
               engine: ClusterView | ClusterControl | None, watch: bool, *,
               options: TuiOptions | None = None,
               reload_config: Callable[[], LoadedConfig] | None = None,
               engine_factory: EngineFactory | None = None) -> SparkApp:
    """The app from plain values; tests pass a fixed ``options.clock``.

    A ``PendingConfig`` is loaded (and its engine built) after the first frame.
    """
    return SparkApp(config, recipes_dir, engine, watch=watch, options=options,
                    reload_config=reload_config, engine_factory=engine_factory)


def run_app(args: argparse.Namespace) -> int:
    """The CLI's entry: find the config and recipes like every command does, then run.

    The config is validated, and the engine built, after the first frame is painted
    (``sparktui.tui.startup``): errors show on the config error screen as ever.
    """
    from sparktui.config.discovery import recipe_dirs
    from sparktui.tui.startup import pending_config

    pending = pending_config(args.config)
    app = create_app(pending, recipe_dirs(args.recipes), engine=None, watch=bool(args.watch),
                     reload_config=pending.load)
    app.run()
    return app.return_code or 0
