"""Serve, stop, exec and tmux from the dashboard, and the one run (serve, stop or power)
the dashboard follows: which screens, in which order, the worker it starts.

The app makes one :class:`ActionFlows` (on first use: none of this is in the first frame)
and calls an entry point per key; each reads the host's selection and passes the host's
safety gate (``Host.control``) before anything changes a cluster, so nothing here runs in
``--watch`` mode. Engine calls go through :mod:`sparktui.tui.workers`; their progress
comes back as ``ActionProgress`` messages and the end as ``ActionFinished``, which the
app routes to :meth:`ActionFlows.progress` and :meth:`ActionFlows.finished`. Power lives
in :mod:`sparktui.tui.controllers.power` and supervision in
:mod:`sparktui.tui.controllers.supervise`; both start their run here.
"""

from __future__ import annotations

import itertools
import subprocess
from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any

from textual.app import SuspendNotSupported

from sparktui.config.loaded import LoadedConfig
from sparktui.engine.api import ClusterControl, Progress, Step, StepState
from sparktui.engine.remote.attach import tmux_attach_argv
from sparktui.errors import SparkError
from sparktui.i18n import _
from sparktui.plan.after_stop import HooksFor, after_stop_loader
from sparktui.plan.bench.aiperf import BenchSettings
from sparktui.plan.build import build_plan
from sparktui.plan.model import LaunchPlan
from sparktui.plan.power import PowerPlan
from sparktui.plan.render import render
from sparktui.tui import workers
from sparktui.tui.controllers.containers import ContainerFlows
from sparktui.tui.controllers.host import Host
from sparktui.tui.controllers.power import PowerFlows
from sparktui.tui.controllers.supervise import SuperviseFlows
from sparktui.tui.messages import ActionFinished, ActionProgress
from sparktui.tui.screens.confirm import ConfirmRequest, ConfirmScreen, HealthCheck
from sparktui.tui.screens.exec import ExecScreen
from sparktui.tui.screens.progress import ProgressScreen
from sparktui.tui.screens.serve_plan import ServePlanScreen
from sparktui.tui.viewmodel.recipes import RecipeEntry, plan_preview, render_problems
from sparktui.tui.viewmodel.runs import ActionRun, running_recipe, shares_seen


def bench_request(recipe: str, cluster: str, check: HealthCheck) -> ConfirmRequest:
    """The confirmation of a bench: load on a live head, so a fresh look at it first;
    nothing is started or stopped, so no name to type."""
    return ConfirmRequest(
        title=_("Benchmark {recipe} on {cluster}").format(recipe=recipe, cluster=cluster),
        verb=_("Benchmark"), cluster=cluster,
        what=_("Puts load on the head of {recipe} (concurrency 1, 4, 16) with aiperf, "
               "from this machine, and keeps the result. Nothing is started or stopped. "
               "Below is what the nodes answer right now.").format(recipe=recipe),
        check=check, affects=lambda w: False, typed=False,
        untouched=_("nothing is started or stopped"),
        stays=_("stays: a benchmark only sends requests"))


class ActionFlows:
    def __init__(self, host: Host) -> None:
        self.host = host
        self.run: ActionRun | None = None
        self.view: ProgressScreen | None = None
        self.run_attached: Callable[[list[str]], int] = subprocess.call
        """Runs ``ssh -t ... tmux attach`` while the app is suspended (tests replace it)."""
        self.bench_settings = BenchSettings()
        """What ``B`` measures (the CLI's defaults; tests set their own)."""
        self.power = PowerFlows(host, self)
        self.supervision = SuperviseFlows(host, self)
        self.containers = ContainerFlows(host, self)
        self._ids = itertools.count(1)

    @property
    def busy(self) -> bool:
        return self.run is not None and self.run.running

    def refuse_while_busy(self) -> bool:
        """One action at a time: say which one runs and show it."""
        if not self.busy:
            return False
        assert self.run is not None
        self.host.notify(_("{action} of {cluster} is still running; wait for it to end").format(
            action=self.run.label, cluster=self.run.cluster), severity="warning")
        self.show_progress()
        return True

    def _loaded(self) -> LoadedConfig:
        loaded = self.host.session.loaded
        assert loaded is not None  # the dashboard (and its keys) only run on a loaded config
        return loaded

    def _plan_of(self, entry: RecipeEntry | None, cluster: str) -> LaunchPlan | None:
        """The plan of the selected recipe on ``cluster``; None, and why told, if none."""
        if entry is None or entry.loaded is None:
            self.host.notify(_("pick a recipe whose plan fits this cluster"),
                             severity="warning")
            return None
        try:
            return build_plan(self._loaded(), entry.loaded, cluster)
        except SparkError as exc:
            self.host.notify(render_problems(exc.problems), severity="error")
            return None

    # -- stop -----------------------------------------------------------------------------

    def stop(self) -> None:
        """``x``: stop what the cluster in focus runs, after a fresh look at it."""
        cluster = self.host.selection.cluster
        control = self.host.control("stop")
        if control is None or not cluster or self.refuse_while_busy():
            return
        request = ConfirmRequest(
            title=_("Stop cluster {cluster}").format(cluster=cluster), verb=_("Stop"),
            cluster=cluster,
            what=_("Removes every sparktui container and tmux session of {cluster} on its "
                   "nodes (heads first), then runs the recipes' after_stop hooks. Below is "
                   "what the nodes answer right now; ✖ marks what will be removed.").format(
                cluster=cluster),
            check=partial(self.host.fresh_health, cluster))
        self.host.push_screen(ConfirmScreen(request), partial(self._stop_confirmed, control,
                                                              cluster))

    def _stop_confirmed(self, control: ClusterControl, cluster: str,
                        confirmed: bool | None) -> None:
        if not confirmed:
            self.host.notify(_("cancelled; nothing was stopped"), timeout=3)
            return
        run = self.start("stop", cluster, None)
        sink = self.sink(run)
        self.launch(workers.run_stop(control, cluster, sink, self._hooks(sink), run.id))

    def stop_recipe(self) -> None:
        """``ctrl+x``: stop only the recipe selected in the recipes pane (several may serve
        on the cluster), after the same fresh look as ``x``."""
        cluster, entry = self.host.selection.cluster, self.host.selection.recipe
        control = self.host.control("stop_recipe")
        if control is None or not cluster or self.refuse_while_busy():
            return
        if entry is None:
            self.host.notify(_("pick the recipe to stop in the recipes pane"),
                             severity="warning")
            return
        recipe = entry.name
        request = self._recipe_request(
            cluster, recipe,
            title=_("Stop {recipe} on {cluster}").format(recipe=recipe, cluster=cluster),
            verb=_("Stop"),
            what=_("Removes every container and tmux session of {recipe} on {cluster} "
                   "(heads first), then runs its after_stop hooks; the other recipes keep "
                   "running. Below is what the nodes answer right now; ✖ marks what will be "
                   "removed.").format(recipe=recipe, cluster=cluster))
        self.host.push_screen(ConfirmScreen(request),
                              partial(self._stop_recipe_confirmed, control, cluster, recipe))

    def _recipe_request(self, cluster: str, recipe: str, *, title: str, verb: str,
                        what: str) -> ConfirmRequest:
        """The confirmation of an action on one recipe's workloads (they are marked),
        after a fresh look at the cluster."""
        return ConfirmRequest(title=title, verb=verb, cluster=cluster, what=what,
                              check=partial(self.host.fresh_health, cluster),
                              affects=lambda w: w.cluster == cluster and w.recipe == recipe)

    def _stop_recipe_confirmed(self, control: ClusterControl, cluster: str, recipe: str,
                               confirmed: bool | None) -> None:
        if not confirmed:
            self.host.notify(_("cancelled; nothing was stopped"), timeout=3)
            return
        run = self.start("stop", cluster, recipe)
        sink = self.sink(run)
        self.launch(workers.run_stop(control, cluster, sink, self._hooks(sink), run.id,
                                     recipe=recipe))

    def _hooks(self, sink: Callable[[Progress], None]) -> HooksFor:
        def skipped(recipe: str, exc: SparkError) -> None:
            sink(Progress(Step.AFTER_STOP, None, StepState.WARN, _(
                "after_stop of {recipe} skipped: {error}").format(recipe=recipe,
                                                                  error=exc.render())))

        return after_stop_loader(self.host.session.recipes_dir, skipped)

    # -- restart --------------------------------------------------------------------------

    def restart(self) -> None:
        """``R``: stop the selected recipe's group and serve its plan again, after stop's
        fresh look at the cluster."""
        selection, config = self.host.selection, self._loaded()
        entry, cluster = selection.recipe, selection.cluster
        control = self.host.control("restart")
        if control is None or self.refuse_while_busy():
            return
        preview = plan_preview(config, entry, cluster) if entry is not None else None
        if entry is None or entry.loaded is None or preview is None or not preview.ok:
            self.host.notify(_("pick a recipe whose plan fits this cluster"),
                             severity="warning")
            return
        plan = self._plan_of(entry, cluster)
        if plan is None:
            return
        recipe = plan.recipe
        request = self._recipe_request(
            cluster, recipe,
            title=_("Restart {recipe} on {cluster}").format(recipe=recipe, cluster=cluster),
            verb=_("Restart"),
            what=_("Stops every container and tmux session of {recipe} on {cluster} "
                   "(after_stop hooks run), then serves the same plan again. Below is what "
                   "the nodes answer right now; ✖ marks what will be replaced.").format(
                recipe=recipe, cluster=cluster))
        self.host.push_screen(ConfirmScreen(request),
                              partial(self._restart_confirmed, control, plan))

    def _restart_confirmed(self, control: ClusterControl, plan: LaunchPlan,
                           confirmed: bool | None) -> None:
        if not confirmed:
            self.host.notify(_("cancelled; nothing was restarted"), timeout=3)
            return
        run = self.start("restart", plan.cluster, plan.recipe,
                         url=f"http://{plan.head.ssh_ip}:{plan.port}/v1" if plan.nodes else "")
        sink = self.sink(run)
        self.launch(workers.run_restart(control, plan, sink, self._hooks(sink), run.id))

    # -- serve ----------------------------------------------------------------------------

    def serve(self) -> None:
        """``s``: the selected recipe's plan on the cluster in focus, then the run."""
        selection, config = self.host.selection, self._loaded()
        entry, cluster = selection.recipe, selection.cluster
        preview = plan_preview(config, entry, cluster) if entry is not None else None
        if preview is None or not preview.ok:
            self.host.notify(_("pick a recipe whose plan fits this cluster"),
                             severity="warning")
            return
        control = self.host.control("serve")
        if control is None or entry is None or self.refuse_while_busy():
            return
        plan = self._plan_of(entry, cluster)
        if plan is None:
            return
        seen = running_recipe(selection.health, plan.recipe)
        warning = _("The last health check saw {recipe} on {nodes}: preflight will refuse "
                    "until it is stopped.").format(recipe=plan.recipe,
                                                   nodes=", ".join(seen)) if seen else ""
        crowded = shares_seen(selection.health, plan)
        if crowded:  # preflight asks the nodes again; this is what the last check saw
            warning = "\n".join([*([warning] if warning else []), *crowded, _(
                "The memory shares do not fit together: preflight will refuse.")])
        screen = ServePlanScreen(plan.recipe, plan.cluster, render(plan, "text"), warning)
        self.host.push_screen(screen, partial(self._serve_confirmed, control, plan))

    def _serve_confirmed(self, control: ClusterControl, plan: LaunchPlan,
                         confirmed: bool | None) -> None:
        if not confirmed:
            return
        run = self.start("serve", plan.cluster, plan.recipe,
                         url=f"http://{plan.head.ssh_ip}:{plan.port}/v1" if plan.nodes else "")
        self.launch(workers.run_serve(control, plan, self.sink(run), run.id))

    # -- bench ----------------------------------------------------------------------------

    def bench(self) -> None:
        """``B``: load the selected recipe's head (it must serve on the cluster in focus),
        behind the confirmation's fresh health check; the run is kept (docs/bench.md)."""
        selection = self.host.selection
        entry, cluster = selection.recipe, selection.cluster
        control = self.host.control("bench")
        if control is None or entry is None or not cluster or self.refuse_while_busy():
            return
        plan = self._plan_of(entry, cluster)
        if plan is None:
            return
        request = bench_request(plan.recipe, cluster,
                                partial(self.host.fresh_health, cluster))
        self.host.push_screen(ConfirmScreen(request), partial(self._bench_confirmed, control,
                                                              plan))

    def _bench_confirmed(self, control: ClusterControl, plan: LaunchPlan,
                         confirmed: bool | None) -> None:
        if not confirmed:
            self.host.notify(_("cancelled; nothing was run"), timeout=3)
            return
        run = self.start("bench", plan.cluster, plan.recipe)
        self.launch(workers.run_bench(control, plan, self.bench_settings, self.sink(run),
                                      run.id))

    # -- the run and its view -------------------------------------------------------------

    def start(self, action: str, cluster: str, recipe: str | None, url: str = "",
              power: PowerPlan | None = None) -> ActionRun:
        """A new run: the one the progress view and ``o`` follow from now on."""
        self.run = ActionRun(next(self._ids), action, cluster, recipe,
                             self.host.session.options.clock(), url=url, power=power)
        self.host.refresh_bindings()
        self.show_progress()
        return self.run

    def sink(self, run: ActionRun) -> Callable[[Progress], None]:
        """Called by the engine on the app's loop, inside the worker: a message is enough."""
        def sink(event: Progress) -> None:
            self.host.post_message(ActionProgress(run.id, event))
        return sink

    def launch(self, work: Coroutine[Any, Any, ActionFinished]) -> None:
        """Run the action's worker; its end comes back as an ``ActionFinished``."""
        async def go() -> None:
            self.host.post_message(await work)
        # group "action", never exclusive: nothing cancels a serve or stop halfway
        self.host.run_worker(go(), group="action", exit_on_error=False)

    def show_progress(self) -> None:
        if self.run is None or (self.view is not None and self.host.is_shown(self.view)):
            return
        self.view = ProgressScreen(self.run, self.host.session.options.clock)
        self.host.push_screen(self.view, self._view_closed)

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
        run.finished_at = self.host.session.options.clock()
        self._repaint()
        if self.view is None:  # the operator closed the view: say how it ended
            self.host.notify(run.outcome(), severity="error" if not message.result.ok
                             else "warning" if message.result.warnings else "information",
                             timeout=10)
        self.host.refresh_bindings()
        self.host.refresh_now()

    def _repaint(self) -> None:
        if self.view is not None and self.host.is_shown(self.view):
            self.view.refresh_run()

    # -- exec and tmux --------------------------------------------------------------------

    def exec(self) -> None:
        """``e``: a command on every node of the cluster in focus."""
        cluster = self.host.selection.cluster
        control = self.host.control("exec")
        if control is None or not cluster:
            return
        config = self._loaded().config
        nodes = [n.name for n in config.cluster(cluster).ranked]
        self.host.push_screen(ExecScreen(cluster, nodes, config.exec_aliases,
                                         partial(workers.run_exec, control, cluster)))

    def tmux(self) -> None:
        """``t``: attach to the tmux session the last health saw on the node under the
        cursor; back to the dashboard after."""
        selection = self.host.selection
        cluster, node, health = selection.cluster, selection.node, selection.health
        if self.host.control("tmux") is None or not cluster:
            return
        if node is None or health is None:
            self.host.notify(_("no health check yet: nothing known about tmux sessions"),
                             severity="warning")
            return
        row = next((n for n in health.nodes if n.node == node), None)
        sessions = sorted((w.cluster != cluster, w.name) for w in (row.workloads if row else [])
                          if w.can_attach)
        if not sessions:
            self.host.notify(_("no sparktui tmux session on {node}").format(node=node),
                             severity="warning")
            return
        config = self._loaded().config
        target = next(n for n in config.cluster(cluster).nodes if n.name == node)
        argv = tmux_attach_argv(config, target, sessions[0][1])
        try:
            with self.host.suspend():
                self.run_attached(argv)
        except SuspendNotSupported:
            self.host.notify(_("this terminal cannot hand over to tmux; run: {command}").format(
                command=" ".join(argv)), severity="warning")
            return
        self.host.refresh_now()
