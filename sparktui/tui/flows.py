"""Serve, stop, power, exec and tmux from the dashboard: which screens, in which order,
and the run they start.

The app makes one :class:`ActionFlows` and hands it the engine as a ``ClusterControl``
only after its own gate (``SparkApp._mutating``) let the action through, so nothing here
is reachable in ``--watch`` mode. Engine calls go through :mod:`sparktui.tui.workers`;
their progress comes back as ``ActionProgress`` messages and the end as
``ActionFinished``, which the app routes to :meth:`progress` and :meth:`finished`.
"""

from __future__ import annotations

import itertools
import subprocess
from collections.abc import Callable, Coroutine
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.app import SuspendNotSupported

from sparktui.config.loaded import LoadedConfig
from sparktui.config.models import Config
from sparktui.engine.api import ClusterControl, Progress, Step, StepState
from sparktui.engine.remote.attach import tmux_attach_argv
from sparktui.engine.status import Workload
from sparktui.errors import SparkError
from sparktui.i18n import _
from sparktui.plan.after_stop import after_stop_loader
from sparktui.plan.build import build_plan
from sparktui.plan.model import LaunchPlan
from sparktui.plan.power import PowerPlan, plan_off, plan_on, plan_switch
from sparktui.plan.render import render
from sparktui.tui import workers
from sparktui.tui.actions import ActionRun, power_title, running_recipe
from sparktui.tui.messages import ActionFinished, ActionProgress
from sparktui.tui.screens.confirm import ConfirmRequest, ConfirmScreen, HealthCheck
from sparktui.tui.screens.exec import ExecScreen
from sparktui.tui.screens.power_menu import PowerChoice
from sparktui.tui.screens.progress import ProgressScreen
from sparktui.tui.screens.serve_plan import ServePlanScreen
from sparktui.tui.state import render_problems

if TYPE_CHECKING:
    from sparktui.tui.app import SparkApp


class ActionFlows:
    def __init__(self, app: SparkApp) -> None:
        self.app = app
        self.run: ActionRun | None = None
        self.view: ProgressScreen | None = None
        self.run_attached: Callable[[list[str]], int] = subprocess.call
        """Runs ``ssh -t ... tmux attach`` while the app is suspended (tests replace it)."""
        self._ids = itertools.count(1)

    @property
    def busy(self) -> bool:
        return self.run is not None and self.run.running

    def _refuse_while_busy(self) -> bool:
        if not self.busy:
            return False
        assert self.run is not None
        self.app.notify(_("{action} of {cluster} is still running; wait for it to end").format(
            action=self.run.label, cluster=self.run.cluster), severity="warning")
        self.show_progress()
        return True

    # -- stop -----------------------------------------------------------------------------

    def stop(self, control: ClusterControl, cluster: str) -> None:
        if self._refuse_while_busy():
            return
        request = ConfirmRequest(
            title=_("Stop cluster {cluster}").format(cluster=cluster), verb=_("Stop"),
            cluster=cluster,
            what=_("Removes every sparktui container and tmux session of {cluster} on its "
                   "nodes (heads first), then runs the recipes' after_stop hooks. Below is "
                   "what the nodes answer right now; ✖ marks what will be removed.").format(
                cluster=cluster),
            check=partial(self.app.fresh_health, cluster))
        self.app.push_screen(ConfirmScreen(request), partial(self._stop_confirmed, control,
                                                             cluster))

    def _stop_confirmed(self, control: ClusterControl, cluster: str,
                        confirmed: bool | None) -> None:
        if not confirmed:
            self.app.notify(_("cancelled; nothing was stopped"), timeout=3)
            return
        run = self._start("stop", cluster, None)
        sink = self._sink(run)

        def skipped(recipe: str, exc: SparkError) -> None:
            sink(Progress(Step.AFTER_STOP, None, StepState.WARN, _(
                "after_stop of {recipe} skipped: {error}").format(recipe=recipe,
                                                                  error=exc.render())))

        hooks = after_stop_loader(self.app.recipes_dir, skipped)
        self._launch(workers.run_stop(control, cluster, sink, hooks, run.id))

    # -- power ----------------------------------------------------------------------------

    def power(self, control: ClusterControl, config: LoadedConfig,
              choice: PowerChoice | None) -> None:
        """Off, on or switch: the plan in words and a fresh health check of the cluster
        that goes down (or comes up), then the run."""
        if choice is None or self._refuse_while_busy():
            return
        try:
            plan = power_plan(config, choice)
        except SparkError as exc:
            self.app.notify(render_problems(exc.problems), severity="error")
            return
        checked = plan.source or plan.target or ""
        request = power_request(config.config, plan, partial(self.app.fresh_health, checked))
        self.app.push_screen(ConfirmScreen(request),
                             partial(self._power_confirmed, control, plan))

    def _power_confirmed(self, control: ClusterControl, plan: PowerPlan,
                         confirmed: bool | None) -> None:
        if not confirmed:
            self.app.notify(_("cancelled; nothing was powered on or off"), timeout=3)
            return
        run = self._start("power", plan.confirm_name, None, power=plan)
        self._launch(workers.run_power(control, plan.action, plan.source, plan.target,
                                       self._sink(run), run.id))

    # -- serve ----------------------------------------------------------------------------

    def serve(self, control: ClusterControl, config: LoadedConfig, recipe_name: str,
              cluster: str) -> None:
        if self._refuse_while_busy():
            return
        dashboard = self.app.dashboard
        entry = dashboard.recipes.entry(recipe_name) if dashboard is not None else None
        if entry is None or entry.loaded is None:
            self.app.notify(_("pick a recipe whose plan fits this cluster"), severity="warning")
            return
        try:
            plan = build_plan(config, entry.loaded, cluster)
        except SparkError as exc:
            self.app.notify(render_problems(exc.problems), severity="error")
            return
        health = dashboard.health.get(cluster) if dashboard is not None else None
        seen = running_recipe(health, plan.recipe)
        warning = _("The last health check saw {recipe} on {nodes}: preflight will refuse "
                    "until it is stopped.").format(recipe=plan.recipe,
                                                   nodes=", ".join(seen)) if seen else ""
        screen = ServePlanScreen(plan.recipe, plan.cluster, render(plan, "text"), warning)
        self.app.push_screen(screen, partial(self._serve_confirmed, control, plan))

    def _serve_confirmed(self, control: ClusterControl, plan: LaunchPlan,
                         confirmed: bool | None) -> None:
        if not confirmed:
            return
        run = self._start("serve", plan.cluster, plan.recipe,
                          url=f"http://{plan.head.ssh_ip}:{plan.port}/v1" if plan.nodes else "")
        self._launch(workers.run_serve(control, plan, self._sink(run), run.id))

    # -- the run and its view -------------------------------------------------------------

    def _start(self, action: str, cluster: str, recipe: str | None, url: str = "",
               power: PowerPlan | None = None) -> ActionRun:
        self.run = ActionRun(next(self._ids), action, cluster, recipe,
                             self.app.options.clock(), url=url, power=power)
        self.app.refresh_bindings()
        self.show_progress()
        return self.run

    def _sink(self, run: ActionRun) -> Callable[[Progress], None]:
        """Called by the engine on the app's loop, inside the worker: a message is enough."""
        def sink(event: Progress) -> None:
            self.app.post_message(ActionProgress(run.id, event))
        return sink

    def _launch(self, work: Coroutine[Any, Any, ActionFinished]) -> None:
        async def go() -> None:
            self.app.post_message(await work)
        # group "action", never exclusive: nothing cancels a serve or stop halfway
        self.app.run_worker(go(), group="action", exit_on_error=False)

    def show_progress(self) -> None:
        if self.run is None or (self.view is not None and self.view in self.app.screen_stack):
            return
        self.view = ProgressScreen(self.run, self.app.options.clock)
        self.app.push_screen(self.view, self._view_closed)

    def _view_closed(self, _result: None) -> None:
        self.view = None

    def progress(self, message: ActionProgress) -> None:
        if self.run is None or message.run_id != self.run.id:
            return
        self.run.events.append(message.progress)
        self._repaint()

    def finished(self, message: ActionFinished) -> None:
        run = self.run
        if run is None or message.run_id != run.id:
            return
        run.result = message.result
        run.finished_at = self.app.options.clock()
        self._repaint()
        if self.view is None:  # the operator closed the view: say how it ended
            self.app.notify(run.outcome(), severity="information" if message.result.ok
                            else "error", timeout=10)
        self.app.refresh_bindings()
        self.app.refresh_now()

    def _repaint(self) -> None:
        if self.view is not None and self.view in self.app.screen_stack:
            self.view.refresh_run()

    # -- exec and tmux --------------------------------------------------------------------

    def exec(self, control: ClusterControl, config: LoadedConfig, cluster: str) -> None:
        nodes = [n.name for n in config.config.cluster(cluster).ranked]
        self.app.push_screen(ExecScreen(cluster, nodes, config.config.exec_aliases,
                                        partial(workers.run_exec, control, cluster)))

    def tmux(self, config: LoadedConfig, cluster: str, node: str | None) -> None:
        """Attach to the tmux session the last health saw on ``node``; back here after."""
        dashboard = self.app.dashboard
        health = dashboard.health.get(cluster) if dashboard is not None else None
        if node is None or health is None:
            self.app.notify(_("no health check yet: nothing known about tmux sessions"),
                            severity="warning")
            return
        row = next((n for n in health.nodes if n.node == node), None)
        sessions = sorted((w.cluster != cluster, w.name) for w in (row.workloads if row else [])
                          if w.runtime == "tmux")
        if not sessions:
            self.app.notify(_("no sparktui tmux session on {node}").format(node=node),
                            severity="warning")
            return
        target = next(n for n in config.config.cluster(cluster).nodes if n.name == node)
        argv = tmux_attach_argv(config.config, target, sessions[0][1])
        try:
            with self.app.suspend():
                self.run_attached(argv)
        except SuspendNotSupported:
            self.app.notify(_("this terminal cannot hand over to tmux; run: {command}").format(
                command=" ".join(argv)), severity="warning")
            return
        self.app.refresh_now()


def power_request(config: Config, plan: PowerPlan, check: HealthCheck) -> ConfirmRequest:
    """The confirmation of a power action: its plan in words, the health of the cluster
    that goes down (or comes up) from ``check``, the workloads that go down marked."""
    down = {n.name for n in plan.down}

    def affects(work: Workload) -> bool:
        return work.node in down  # a node going down takes everything on it along

    verb = {"off": _("Power off"), "on": _("Power on"), "switch": _("Switch")}[plan.action]
    lines = "\n".join("• " + line for line in plan.lines(config))
    return ConfirmRequest(
        title=power_title(plan), verb=verb, cluster=plan.confirm_name,
        what=_("Through Home Assistant:\n{steps}\nBelow is what the nodes of {cluster} "
               "answer right now; ✖ marks what goes down with its node.").format(
            steps=lines, cluster=plan.source or plan.target or ""),
        check=check, affects=affects)


def power_plan(config: LoadedConfig, choice: PowerChoice) -> PowerPlan:
    """The engine's plan for a choice (raises SparkError for an unknown cluster)."""
    if choice.action == "switch":
        assert choice.source is not None and choice.target is not None
        return plan_switch(config.config, choice.source, choice.target)
    if choice.action == "off":
        assert choice.source is not None
        return plan_off(config.config, choice.source)
    assert choice.target is not None
    return plan_on(config.config, choice.target)
