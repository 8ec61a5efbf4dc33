"""Supervision from the dashboard: ``S`` starts it for the selected recipe on the cluster
in focus, ``X`` ends it (nothing is stopped).

The dashboard starts the **on-node** supervisor (``ClusterControl.supervise_on_node``): a
container on the cluster's head that keeps watching when the dashboard closes or the
operator's laptop sleeps, which is what a dashboard action is expected to do (a
supervisor inside the dashboard would end with it). Both actions pass the host's safety
gate (never in ``--watch``) and the health-first confirmation, then run through
:class:`~sparktui.tui.controllers.flows.ActionFlows` like serve and stop (one action at
a time, the progress view).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from sparktui.engine.api import ClusterControl
from sparktui.engine.status import Workload
from sparktui.errors import SparkError
from sparktui.fmt import format_duration
from sparktui.i18n import _
from sparktui.plan.build import build_plan
from sparktui.plan.model import LaunchPlan
from sparktui.tui import workers
from sparktui.tui.controllers.host import Host
from sparktui.tui.screens.confirm import ConfirmRequest, ConfirmScreen
from sparktui.tui.viewmodel.recipes import plan_preview, render_problems

if TYPE_CHECKING:
    from sparktui.tui.controllers.flows import ActionFlows

SUPERVISED = frozenset({"supervised"})


class SuperviseFlows:
    def __init__(self, host: Host, flows: ActionFlows) -> None:
        self.host = host
        self.flows = flows

    def start(self) -> None:
        """``S``: a supervisor on the head for the selected recipe's group."""
        selection = self.host.selection
        loaded = self.host.session.loaded
        assert loaded is not None
        entry, cluster = selection.recipe, selection.cluster
        preview = plan_preview(loaded, entry, cluster) if entry is not None else None
        if entry is None or entry.loaded is None or preview is None or not preview.ok:
            self.host.notify(_("pick a recipe whose plan fits this cluster"),
                             severity="warning")
            return
        control = self.host.control("supervise")
        if control is None or self.flows.refuse_while_busy():
            return
        status = selection.health.supervision if selection.health is not None else None
        if status is not None and status.state in SUPERVISED and status.lease is not None:
            self.host.notify(_("{cluster} is supervised already by {holder} ({mode})").format(
                cluster=cluster, holder=status.lease.holder, mode=status.lease.mode),
                severity="warning")
            return
        try:
            plan = build_plan(loaded, entry.loaded, cluster)
            path = entry.loaded.source.path or entry.path
            text = path.read_text(encoding="utf-8")
        except SparkError as exc:
            self.host.notify(render_problems(exc.problems), severity="error")
            return
        except OSError as exc:
            self.host.notify(_("cannot read {path}: {error}").format(
                path=entry.path, error=exc.strerror or exc), severity="error")
            return
        if not plan.nodes:
            self.host.notify(_("{recipe} runs no engine: there is no group to supervise")
                             .format(recipe=plan.recipe), severity="warning")
            return
        config = loaded.config

        def affects(work: Workload) -> bool:
            return work.cluster == plan.cluster and work.recipe == plan.recipe

        request = ConfirmRequest(
            title=_("Supervise {recipe} on {cluster}").format(recipe=plan.recipe,
                                                              cluster=plan.cluster),
            verb=_("Supervise"), cluster=plan.cluster, affects=affects,
            what=_("Starts a supervisor in a container on {head}, the head of {cluster} "
                   "(image {image}): it keeps running when the dashboard closes. It serves "
                   "{recipe} unless its group runs, then restarts the whole group when it "
                   "fails, at most {restarts} times in {window}. x (stop) or X (end "
                   "supervision) ends it. Below is what the nodes answer right now; ✖ marks "
                   "what a restart replaces.").format(
                head=plan.head.name, cluster=plan.cluster, image=config.supervise_image,
                recipe=plan.recipe, restarts=config.supervise_max_restarts,
                window=format_duration(config.supervise_window_seconds)),
            check=partial(self.host.fresh_health, plan.cluster))
        self.host.push_screen(ConfirmScreen(request),
                              partial(self._start_confirmed, control, plan, text))

    def _start_confirmed(self, control: ClusterControl, plan: LaunchPlan, text: str,
                         confirmed: bool | None) -> None:
        if not confirmed:
            self.host.notify(_("cancelled; nothing is supervised"), timeout=3)
            return
        run = self.flows.start("supervise", plan.cluster, plan.recipe)
        self.flows.launch(workers.run_supervise(control, plan, text, self.flows.sink(run),
                                                run.id))

    def end(self) -> None:
        """``X``: end the supervision of the cluster in focus, wherever it runs."""
        selection = self.host.selection
        cluster = selection.cluster
        control = self.host.control("end_supervision")
        if control is None or not cluster or self.flows.refuse_while_busy():
            return
        health = selection.health
        status = health.supervision if health is not None else None
        head = next((n for n in health.nodes if status and n.node == status.node and
                     not n.known), None) if health is not None else None
        if status is not None and not status.current and head is not None:
            # no record on the head, but its docker (a supervisor's container) did not
            # answer: never "nothing supervises"
            self.host.notify(_("what supervises {cluster} is {state}").format(
                cluster=cluster, state=_("unknown: {why}").format(why=head.unanswered)),
                severity="error")
            return
        if status is not None and not status.current:  # none, or history only
            self.host.notify(_("nothing supervises {cluster}").format(cluster=cluster),
                             severity="warning")
            return
        request = ConfirmRequest(
            title=_("End supervision of {cluster}").format(cluster=cluster),
            verb=_("End supervision"), cluster=cluster, affects=lambda work: False,
            typed=False,
            untouched=_("Nothing is stopped: the group of {cluster} stays as it is.").format(
                cluster=cluster),
            what=_("Writes a mark on every node of {cluster} that ends its supervisor, "
                   "wherever it runs, and removes the supervisor's container from the head; "
                   "a supervision that gave up is cleared. Nothing is stopped or restarted. "
                   "Below is what the nodes answer right now.").format(cluster=cluster),
            check=partial(self.host.fresh_health, cluster))
        self.host.push_screen(ConfirmScreen(request),
                              partial(self._end_confirmed, control, cluster))

    def _end_confirmed(self, control: ClusterControl, cluster: str,
                       confirmed: bool | None) -> None:
        if not confirmed:
            self.host.notify(_("cancelled; supervision goes on"), timeout=3)
            return
        run = self.flows.start("end_supervision", cluster, None)
        self.flows.launch(workers.run_end_supervision(control, cluster, self.flows.sink(run),
                                                      run.id))
