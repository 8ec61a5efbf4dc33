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
from sparktui.engine.api import (
    ClusterControl,
    Progress,
    Step,
    StepState,
    Transfer,
    TransferSink,
    attachable,
    restart_refusal,
)
from sparktui.errors import SparkError
from sparktui.i18n import _
from sparktui.plan.after_stop import HooksFor, after_stop_loader
from sparktui.plan.bench.aiperf import BenchSettings
from sparktui.plan.model import LaunchPlan
from sparktui.plan.power import PowerPlan
from sparktui.tui import workers
from sparktui.tui.actions import Action, app_spec
from sparktui.tui.controllers.ask import Ask, api_url
from sparktui.tui.controllers.containers import ContainerFlows
from sparktui.tui.controllers.host import Host
from sparktui.tui.controllers.power import PowerFlows
from sparktui.tui.controllers.pull import PullFlows
from sparktui.tui.controllers.supervise import SuperviseFlows
from sparktui.tui.messages import ActionFinished, ActionProgress, ActionTransfer
from sparktui.tui.screens.confirm import ConfirmRequest, ConfirmScreen, HealthCheck
from sparktui.tui.screens.exec import ExecScreen
from sparktui.tui.screens.progress import ProgressScreen
from sparktui.tui.screens.serve_plan import ServePlanScreen
from sparktui.tui.viewmodel.runs import ActionRun, names_seen, running_recipe, shares_seen


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


def restart_request(plan: LaunchPlan, check: HealthCheck) -> ConfirmRequest:
    """The confirmation of a restart: stop's fresh look, the recipe's workloads marked.
    What the CLI's restart refuses (``restart_refusal``: nothing of it runs, or its serve
    would be refused after the stop and leave it down) cannot be confirmed."""
    recipe, cluster = plan.recipe, plan.cluster
    return ConfirmRequest(
        title=_("Restart {recipe} on {cluster}").format(recipe=recipe, cluster=cluster),
        verb=_("Restart"), cluster=cluster,
        what=_("Stops every container and tmux session of {recipe} on {cluster} "
               "(after_stop hooks run), then serves the same plan again. Below is what "
               "the nodes answer right now; ✖ marks what will be replaced.").format(
            recipe=recipe, cluster=cluster),
        check=check, affects=lambda w: w.cluster == cluster and w.recipe == recipe,
        refuse=lambda health: restart_refusal(health, plan), recipe=recipe)


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
        self.pulls = PullFlows(host, self)
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

    # -- the one confirm -> run template -------------------------------------------------

    def ask(self, action: Action, prepare: Callable[[], Ask | None]) -> None:
        """Every cluster change from a key: the selection allows it (the rule the palette
        uses too), the safety gate gives the engine, one action at a time, then the
        confirmation ``prepare`` builds (None: it told the operator why not)."""
        why = app_spec(action).unavailable(self.host.now())
        if why is not None:
            self.host.notify(why, severity="warning")
            return
        control = self.host.control(action)
        if control is None or self.refuse_while_busy():
            return
        if (asked := prepare()) is not None:
            self.confirm(control, asked)

    def confirm(self, control: ClusterControl, asked: Ask) -> None:
        """Show the confirmation; a yes starts the run the progress view follows."""
        self.host.push_screen(asked.screen, partial(self._answered, control, asked))

    def _answered(self, control: ClusterControl, asked: Ask, confirmed: bool | None) -> None:
        if not confirmed:
            if asked.cancelled:
                self.host.notify(asked.cancelled, timeout=3)
            return
        run = self.start(asked.run, asked.cluster, asked.recipe, url=asked.url,
                         power=asked.power, plan=asked.plan)
        self.launch(asked.work(control, self.sink(run), run.id))

    def selected_plan(self) -> LaunchPlan | None:
        """The selected recipe's plan on the cluster in focus: the one the plan pane shows
        (built once; ``Spec.when`` made sure there is one)."""
        preview = self.host.now().preview()
        return preview.plan if preview is not None else None

    # -- stop, restart, serve, bench ------------------------------------------------------

    def stop(self) -> None:
        """``x``: stop what the cluster in focus runs, after a fresh look at it."""
        self.ask(Action.STOP, self._ask_stop)

    def _ask_stop(self) -> Ask | None:
        cluster = self.host.selection.cluster
        if not cluster:
            return None
        request = ConfirmRequest(
            title=_("Stop cluster {cluster}").format(cluster=cluster), verb=_("Stop"),
            cluster=cluster,
            what=_("Removes every sparktui container and tmux session of {cluster} on its "
                   "nodes (heads first), then runs the recipes' after_stop hooks. Below is "
                   "what the nodes answer right now; ✖ marks what will be removed.").format(
                cluster=cluster),
            check=partial(self.host.fresh_health, cluster))
        return Ask(ConfirmScreen(request), _("cancelled; nothing was stopped"), Action.STOP,
                   cluster, None, lambda control, sink, run_id: workers.run_stop(
                       control, cluster, sink, self._hooks(sink), run_id))

    def stop_recipe(self) -> None:
        """``ctrl+x``: stop only the recipe selected in the recipes pane (several may serve
        on the cluster), after the same fresh look as ``x``."""
        self.ask(Action.STOP_RECIPE, self._ask_stop_recipe)

    def _ask_stop_recipe(self) -> Ask | None:
        cluster, entry = self.host.selection.cluster, self.host.selection.recipe
        if not cluster or entry is None:
            return None
        recipe = entry.name
        request = self._recipe_request(
            cluster, recipe,
            title=_("Stop {recipe} on {cluster}").format(recipe=recipe, cluster=cluster),
            verb=_("Stop"),
            what=_("Removes every container and tmux session of {recipe} on {cluster} "
                   "(heads first), then runs its after_stop hooks; the other recipes keep "
                   "running. Below is what the nodes answer right now; ✖ marks what will be "
                   "removed.").format(recipe=recipe, cluster=cluster))
        return Ask(ConfirmScreen(request), _("cancelled; nothing was stopped"), Action.STOP,
                   cluster, recipe, lambda control, sink, run_id: workers.run_stop(
                       control, cluster, sink, self._hooks(sink), run_id, recipe=recipe))

    def _recipe_request(self, cluster: str, recipe: str, *, title: str, verb: str,
                        what: str) -> ConfirmRequest:
        """The confirmation of an action on one recipe's workloads (they are marked),
        after a fresh look at the cluster."""
        return ConfirmRequest(title=title, verb=verb, cluster=cluster, what=what,
                              check=partial(self.host.fresh_health, cluster),
                              affects=lambda w: w.cluster == cluster and w.recipe == recipe,
                              recipe=recipe)

    def _hooks(self, sink: Callable[[Progress], None]) -> HooksFor:
        def skipped(recipe: str, exc: SparkError) -> None:
            sink(Progress(Step.AFTER_STOP, None, StepState.WARN, _(
                "after_stop of {recipe} skipped: {error}").format(recipe=recipe,
                                                                  error=exc.render())))

        return after_stop_loader(self.host.session.recipes_dir, skipped)

    def restart(self) -> None:
        """``R``: stop the selected recipe's group and serve its plan again, after stop's
        fresh look at the cluster (``restart_request``)."""
        self.ask(Action.RESTART, self._ask_restart)

    def _ask_restart(self) -> Ask | None:
        preview = self.host.now().preview()
        if preview is None or (plan := preview.plan) is None:
            return None
        request = restart_request(plan, partial(self.host.fresh_health, plan.cluster))
        return Ask(ConfirmScreen(request), _("cancelled; nothing was restarted"),
                   Action.RESTART, plan.cluster, plan.recipe,
                   lambda control, sink, run_id: workers.run_restart(
                       control, plan, sink, self._hooks(sink), run_id, preview.replan),
                   url=api_url(plan))

    def serve(self) -> None:
        """``s``: the selected recipe's plan on the cluster in focus, then the run."""
        self.ask(Action.SERVE, self._ask_serve)

    def _ask_serve(self) -> Ask | None:
        preview = self.host.now().preview()  # the plan pane's: its text is rendered once
        if preview is None or (plan := preview.plan) is None:
            return None
        health = self.host.selection.health
        seen = running_recipe(health, plan.recipe)
        warning = _("The last health check saw {recipe} on {nodes}: preflight will refuse "
                    "until it is stopped.").format(recipe=plan.recipe,
                                                   nodes=", ".join(seen)) if seen else ""
        crowded = shares_seen(health, plan)
        if crowded:  # preflight asks the nodes again; this is what the last check saw
            warning = "\n".join([*([warning] if warning else []), *crowded, _(
                "The memory shares do not fit together: preflight will refuse.")])
        warning = "\n".join([*([warning] if warning else []), *names_seen(health, plan)])
        screen = ServePlanScreen(plan.recipe, plan.cluster, preview.text, warning)
        return Ask(screen, "", Action.SERVE, plan.cluster, plan.recipe,
                   lambda control, sink, run_id: workers.run_serve(control, plan, sink, run_id,
                                                                   preview.replan),
                   url=api_url(plan), plan=plan)

    def bench(self) -> None:
        """``B``: load the selected recipe's head (it must serve on the cluster in focus),
        behind the confirmation's fresh health check; the run is kept (docs/bench.md)."""
        self.ask(Action.BENCH, self._ask_bench)

    def _ask_bench(self) -> Ask | None:
        if (plan := self.selected_plan()) is None:
            return None
        request = bench_request(plan.recipe, plan.cluster,
                                partial(self.host.fresh_health, plan.cluster))
        return Ask(ConfirmScreen(request), _("cancelled; nothing was run"), Action.BENCH,
                   plan.cluster, plan.recipe,
                   lambda control, sink, run_id: workers.run_bench(
                       control, plan, self.bench_settings, sink, run_id))

    # -- the run and its view -------------------------------------------------------------

    def start(self, action: Action, cluster: str, recipe: str | None, url: str = "",
              power: PowerPlan | None = None, plan: LaunchPlan | None = None) -> ActionRun:
        """A new run: the one the progress view and ``o`` follow from now on."""
        self.run = ActionRun(next(self._ids), action, cluster, recipe,
                             self.host.session.options.clock(), url=url, power=power,
                             plan=plan)
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

    def transfers(self, run_id: int) -> TransferSink:
        """A pull's byte reports, called by the engine on the app's loop: a message each."""
        def sink(transfer: Transfer) -> None:
            self.host.post_message(ActionTransfer(run_id, transfer))
        return sink

    def transfer(self, message: ActionTransfer) -> None:
        if self.run is None or message.run_id != self.run.id:
            return
        self.run.transfers.add(message.transfer, self.host.session.options.clock())
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
        control = self.host.control(Action.EXEC)
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
        control = self.host.control(Action.TMUX)
        if control is None or not cluster:
            return
        if node is None or health is None:
            self.host.notify(_("no health check yet: nothing known about tmux sessions"),
                             severity="warning")
            return
        row = next((n for n in health.nodes if n.node == node), None)
        sessions = attachable(row.workloads if row else [], cluster)
        if not sessions and row is not None and not row.known:  # unknown, never "none"
            self.host.notify(_("unknown: {why}").format(why=row.unanswered), severity="error")
            return
        if not sessions:
            self.host.notify(_("no sparktui tmux session on {node}").format(node=node),
                             severity="warning")
            return
        argv = control.attach_argv(cluster, sessions[0])
        try:
            with self.host.suspend():
                self.run_attached(argv)
        except SuspendNotSupported:
            self.host.notify(_("this terminal cannot hand over to tmux; run: {command}").format(
                command=" ".join(argv)), severity="warning")
            return
        self.host.refresh_now()
