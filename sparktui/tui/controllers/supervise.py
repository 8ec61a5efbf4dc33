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

from sparktui.engine.api import Workload
from sparktui.fmt import format_duration
from sparktui.i18n import _
from sparktui.tui import workers
from sparktui.tui.actions import Action
from sparktui.tui.controllers.ask import Ask, Runs
from sparktui.tui.controllers.host import Host
from sparktui.tui.screens.confirm import ConfirmRequest, ConfirmScreen


class SuperviseFlows:
    def __init__(self, host: Host, flows: Runs) -> None:
        self.host = host
        self.flows = flows

    def start(self) -> None:
        """``S``: a supervisor on the head for the selected recipe's group."""
        self.flows.ask(Action.SUPERVISE, self._ask_start)

    def _ask_start(self) -> Ask | None:
        selection = self.host.selection
        loaded = self.host.session.loaded
        entry, cluster = selection.recipe, selection.cluster
        plan = self.flows.selected_plan()
        assert loaded is not None and entry is not None and entry.loaded is not None
        status = selection.health.supervision if selection.health is not None else None
        if status is not None and (held := status.held_by) is not None:
            self.host.notify(_("{cluster} is supervised already by {holder} ({mode})").format(
                cluster=cluster, holder=held.holder, mode=held.mode), severity="warning")
            return None
        if plan is None:
            return None
        try:
            path = entry.loaded.source.path or entry.path
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            self.host.notify(_("cannot read {path}: {error}").format(
                path=entry.path, error=exc.strerror or exc), severity="error")
            return None
        if not plan.nodes:
            self.host.notify(_("{recipe} runs no engine: there is no group to supervise")
                             .format(recipe=plan.recipe), severity="warning")
            return None
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
        return Ask(ConfirmScreen(request), _("cancelled; nothing is supervised"),
                   Action.SUPERVISE, plan.cluster, plan.recipe,
                   lambda control, sink, run_id: workers.run_supervise(control, plan, text,
                                                                       sink, run_id))

    def end(self) -> None:
        """``X``: end the supervision of the cluster in focus, wherever it runs."""
        self.flows.ask(Action.END_SUPERVISION, self._ask_end)

    def _ask_end(self) -> Ask | None:
        selection = self.host.selection
        cluster = selection.cluster
        if not cluster:
            return None
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
            return None
        if status is not None and not status.current:  # none, or history only
            self.host.notify(_("nothing supervises {cluster}").format(cluster=cluster),
                             severity="warning")
            return None
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
        return Ask(ConfirmScreen(request), _("cancelled; supervision goes on"),
                   Action.END_SUPERVISION, cluster, None,
                   lambda control, sink, run_id: workers.run_end_supervision(
                       control, cluster, sink, run_id))
