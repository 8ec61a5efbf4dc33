"""The dashboard app: the keys, the one safety gate, and who does what.

* The app owns the :class:`~sparktui.tui.session.Session` (the config's state, the
  engine, the file watch), the :class:`~sparktui.tui.screenflow.ScreenFlow` (which screen
  that state calls for, and the reload) and the
  :class:`~sparktui.tui.readers.ReadWorkers` (health, logs and telemetry of the cluster in
  focus, posted to the dashboard).
* ``CHANGES_CLUSTER`` (:mod:`sparktui.tui.actions`, the one table of commands) and
  ``check_action`` are the one safety gate: in ``--watch`` mode
  those actions are refused, so they are not bound, not in the footer, the help or the
  command palette; a watch session's engine has no mutating method either; and a
  controller gets the engine only from :meth:`SparkApp.control`.
* The dashboard screen owns what it shows and the selection (the cluster in focus, the
  recipe, the node): ``SparkApp.cluster`` and ``SparkApp.selection`` read it there.
* The app is the controllers' ``Host`` (:mod:`sparktui.tui.controllers.host`): the keys
  for serve, stop, exec, tmux, power and supervision call :mod:`sparktui.tui.controllers`, built on
  first use (their screens are not in the first frame).
* Build it with :func:`create_app` (tests pass a fixed clock); ``run_app`` is the CLI's.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events, on
from textual.app import App, SystemCommand
from textual.message import Message
from textual.screen import Screen

from sparktui.config.loaded import LoadedConfig
from sparktui.i18n import _
from sparktui.tui.actions import (
    ALL_SPECS,
    CHANGES_CLUSTER,
    IDLE_IN_WATCH,
    NEEDS_DASHBOARD,
    Action,
    Now,
    Target,
    bindings,
    run_noun,
)
from sparktui.tui.commands import SparkCommands, system_commands
from sparktui.tui.markup import SafeText
from sparktui.tui.messages import (
    ActionFinished,
    ActionProgress,
    ActionTransfer,
    ClusterFocused,
    PullOffered,
)
from sparktui.tui.options import TuiOptions
from sparktui.tui.readers import ReadWorkers
from sparktui.tui.screenflow import ScreenFlow
from sparktui.tui.session import ConfigState, EngineFactory, Session, close_engine
from sparktui.tui.startup import PendingConfig, finish_start
from sparktui.tui.viewmodel.selection import Selection

if TYPE_CHECKING:  # loaded after the first frame (sparktui.tui.startup)
    from sparktui.engine.api import ClusterControl, ClusterHealth, ClusterView
    from sparktui.tui.controllers.flows import ActionFlows
    from sparktui.tui.screens.dashboard import DashboardScreen

class SparkApp(SafeText, App[int]):
    TITLE = "sparktui"
    CSS_PATH = "app.tcss"
    COMMANDS = App.COMMANDS | {SparkCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # app.tcss: 80x24 fits
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]
    BINDINGS = bindings(Target.APP)

    def __init__(self, config: ConfigState, recipes_dir: Path,
                 engine: ClusterControl | None, *, watch: bool = False,
                 options: TuiOptions | None = None,
                 reload_config: Callable[[], LoadedConfig] | None = None,
                 engine_factory: EngineFactory | None = None) -> None:
        super().__init__()
        self.session = Session(config, recipes_dir, engine, watch_mode=watch,
                               options=options or TuiOptions(), reload_config=reload_config,
                               engine_factory=engine_factory)
        self.action_log: list[str] = []
        self.readers = ReadWorkers(self, self.session, lambda: self.cluster, self._deliver)
        self._flows: ActionFlows | None = None
        self.screen_flow = ScreenFlow(self, self.session, self.readers,
                                      busy=lambda: self._flows is not None and self._flows.busy)
        self._quit_armed = False
        self._told_read_only = False
        if not self.session.options.animations:
            self.animation_level = "none"

    @property
    def config(self) -> ConfigState:
        return self.session.config

    @property
    def engine(self) -> ClusterView | None:
        return self.session.engine

    @property
    def dashboard(self) -> DashboardScreen | None:
        """The dashboard of the config loaded last (it may be under the error screen)."""
        return self.screen_flow.dashboard

    @property
    def cluster(self) -> str:
        """The cluster in focus: the dashboard's (its selection is the one place it lives)."""
        return self.dashboard.cluster if self.dashboard is not None else ""

    @property
    def selection(self) -> Selection:
        return self.dashboard.selection if self.dashboard is not None else Selection()

    def now(self) -> Now:
        """What the commands' rules (``Spec.when``) judge: the selection and its plan."""
        dashboard = self.dashboard
        return Now(self.selection, dashboard.current_preview if dashboard is not None
                   else lambda: None)

    def on_mount(self) -> None:
        # Pushed over the (blank) default screen so a config reload can switch_screen it.
        self.push_screen(self.screen_flow.first())
        if (pending := self.session.pending) is not None:  # load it after the first frame
            self.call_after_refresh(self._start_loading, pending)
        if self.session.watch_mode:
            self.set_interval(self.session.options.cycle_seconds, self._cycle_cluster)
        self.set_interval(self.session.options.reload_seconds, self.screen_flow.poll_files)

    def _start_loading(self, pending: PendingConfig) -> None:
        self.run_worker(self._finish_start(pending), group="startup")

    async def _finish_start(self, pending: PendingConfig) -> None:
        config, engine = await finish_start(pending)
        self.screen_flow.started(config, engine)

    async def on_unmount(self) -> None:
        for engine in self.session.engines():
            await close_engine(engine)

    @property
    def flows(self) -> ActionFlows:
        """The controllers, built on first use (their screens are not in the first frame)."""
        if self._flows is None:
            from sparktui.tui.controllers.flows import ActionFlows

            self._flows = ActionFlows(self)
        return self._flows

    def cluster_names(self) -> list[str]:
        return [c.name for c in self.dashboard.clusters] if self.dashboard else []

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        return system_commands(super().get_system_commands(screen))

    def action_command_palette(self) -> None:
        """Textual's palette, its placeholder in the user's language."""
        from textual.command import CommandPalette

        if self.use_command_palette and not any(isinstance(s, CommandPalette)
                                                for s in self.screen_stack):
            self.push_screen(CommandPalette(id="--command-palette",
                                            placeholder=_("Search for commands…")))

    def is_shown(self, screen: Screen[Any]) -> bool:
        return screen in self.screen_stack

    # -- safety: one place decides what may run -----------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in CHANGES_CLUSTER and self.session.watch_mode:
            return False
        if action == Action.PROGRESS and (self._flows is None or self._flows.run is None):
            return False  # nothing to show: not bound, not in the footer
        return not (action in NEEDS_DASHBOARD and (self.dashboard is None
                                                   or self.dashboard not in self.screen_stack))

    def on_key(self, event: events.Key) -> None:
        """--watch: the first key of a refused action says why nothing happens."""
        if not self.session.watch_mode or self._told_read_only:
            return
        refused = CHANGES_CLUSTER | IDLE_IN_WATCH
        if any(s.key == event.key and s.action in refused for s in ALL_SPECS
               if s.target in (Target.APP, Target.RECIPES)):
            self._told_read_only = True
            self.notify(_("Read-only (--watch): serve, stop, restart, exec, shell, tmux, "
                          "power, supervision, benchmarks and recipe edits are off."),
                        timeout=6)

    def control(self, action: Action) -> ClusterControl | None:
        """Every mutating action passes here; watch mode never gets this far."""
        if self.session.watch_mode or action not in CHANGES_CLUSTER:
            self.action_log.append(f"refused:{action}")
            return None
        self.action_log.append(action)
        control = self.session.control()
        if control is None:
            self.notify(_("{action} needs a connected engine").format(action=run_noun(action)),
                        severity="warning")
        return control

    @on(events.DescendantFocus)
    def _steady_cursor(self, event: events.DescendantFocus) -> None:
        """``cursor_blink=False`` for every text box as it takes the focus, in one place
        (panes, dialogs and forms pass nothing down): a blinking cursor made a snapshot
        show it or not by when it was taken."""
        if not self.session.options.cursor_blink and hasattr(event.widget, "cursor_blink"):
            event.widget.cursor_blink = False

    # -- the cluster in focus and the read workers ---------------------------------------------

    @on(ClusterFocused)
    def _on_cluster_focused(self, message: ClusterFocused) -> None:
        self.focus_cluster(message.cluster)

    def focus_cluster(self, name: str) -> None:
        """Show a cluster and point the read workers at it."""
        dashboard = self.dashboard
        if dashboard is None:
            return
        # not up: a reload is building it (it focuses on mount), or the app is closing
        # (its panes and their trees go before the screen does, while the watch cycle's
        # timer still runs)
        shown = (dashboard.is_mounted and dashboard in self.screen_stack and not self._exit
                 and bool(dashboard.query("ClusterTree")))
        if dashboard.focus_cluster(name, paint=shown) and shown:
            self.readers.follow(name)

    def refresh_now(self) -> None:
        self.readers.refresh_now()

    async def fresh_health(self, cluster: str) -> ClusterHealth:
        """A new health check through the session's engine (for a confirmation); the
        dashboard shows it too."""
        return await self.readers.fresh_health(cluster)

    def _deliver(self, message: Message) -> None:
        if self.dashboard is not None:
            self.dashboard.post_message(message)

    def _cycle_cluster(self) -> None:
        names = self.cluster_names()
        if len(names) < 2 or not self.screen_stack or self.screen.is_modal:
            return
        at = names.index(self.cluster) if self.cluster in names else -1
        self.focus_cluster(names[(at + 1) % len(names)])

    # -- actions: the keys call the controllers --------------------------------------------------

    def action_help(self) -> None:
        from sparktui.tui.screens.help import HelpScreen, help_rows

        self.push_screen(HelpScreen(help_rows(self, self.dashboard),
                                    read_only=self.session.watch_mode))

    def action_refresh(self) -> None:
        self.action_log.append(Action.REFRESH)
        if self.dashboard is not None:
            self.dashboard.reload_recipes()
        if self.session.engine is None:
            self.notify(_("recipes reloaded; not connected to the cluster"), timeout=3)
        else:
            self.refresh_now()

    def action_serve(self) -> None:
        self.flows.serve()

    def action_stop(self) -> None:
        self.flows.stop()

    def action_exec(self) -> None:
        self.flows.exec()

    def action_tmux(self) -> None:
        self.flows.tmux()

    def action_restart(self) -> None:
        self.flows.restart()

    def action_stop_recipe(self) -> None:
        self.flows.stop_recipe()

    def action_shell(self) -> None:
        self.flows.containers.shell()

    def action_inspect(self) -> None:
        self.flows.containers.inspect()

    def action_power(self) -> None:
        self.flows.power.menu()

    def action_power_on(self) -> None:
        self.flows.power.on()

    def action_power_off(self) -> None:
        self.flows.power.off()

    def action_power_switch(self) -> None:
        self.flows.power.switch()

    def action_supervise(self) -> None:
        self.flows.supervision.start()

    def action_end_supervision(self) -> None:
        self.flows.supervision.end()

    def action_deep_check(self) -> None:
        """The third readiness tier on demand: a one-token completion on the head."""
        if self.session.engine is not None and self.cluster:
            self.action_log.append(Action.DEEP_CHECK)
            self.readers.deep_check(self.cluster)

    def action_progress(self) -> None:
        self.flows.show_progress()

    def action_bench(self) -> None:
        self.flows.bench()

    def action_pull(self) -> None:
        self.flows.pulls.pull()

    def action_bench_results(self) -> None:
        """The benchmark runs kept (read-only: a file read, nothing on a cluster)."""
        from sparktui.engine.api import bench_dir, kept_runs
        from sparktui.tui.screens.bench_results import BenchResultsScreen

        folder = bench_dir()
        runs, problems = kept_runs(folder)
        self.push_screen(BenchResultsScreen(runs, problems, str(folder)))

    async def action_quit(self) -> None:
        run = self.flows.run
        if self.flows.busy and run is not None and not self._quit_armed:
            self._quit_armed = True
            self.notify(_("a {action} is running: quitting cancels it halfway. Press q again "
                          "to quit anyway.").format(action=run.label), severity="warning")
            return
        await super().action_quit()

    @on(ActionProgress)
    def _on_action_progress(self, message: ActionProgress) -> None:
        self.flows.progress(message)

    @on(ActionTransfer)
    def _on_action_transfer(self, message: ActionTransfer) -> None:
        self.flows.transfer(message)

    @on(PullOffered)
    def _on_pull_offered(self, message: PullOffered) -> None:
        run = self.flows.run
        if run is not None and run.id == message.run_id and run.plan is not None:
            self.flows.pulls.offer(run.plan)

    @on(ActionFinished)
    def _on_action_finished(self, message: ActionFinished) -> None:
        self.flows.finished(message)
        self.screen_flow.close_retired()  # an engine the action held, from before a reload


def create_app(config: ConfigState, recipes_dir: Path,
               engine: ClusterControl | None, watch: bool, *,
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
