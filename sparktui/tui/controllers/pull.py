"""Pulling a recipe's image and model from the dashboard: ``P`` on a recipe, and the offer
a serve makes when its preflight found them missing.

A pull moves tens of GB over the fabric of a cluster that may be serving, and fills its
disks: like every cluster change it passes the host's safety gate (never in ``--watch``)
and a confirmation that shows a fresh health check first; nothing is started or stopped,
so no name is typed. The run goes through :class:`~sparktui.tui.controllers.flows.ActionFlows`
like serve and stop; its bytes per node arrive as ``ActionTransfer`` messages.
"""

from __future__ import annotations

from functools import partial

from sparktui.engine.api import PullParts
from sparktui.i18n import _
from sparktui.plan.model import LaunchPlan
from sparktui.tui import workers
from sparktui.tui.actions import Action
from sparktui.tui.controllers.ask import Ask, Runs
from sparktui.tui.controllers.host import Host
from sparktui.tui.screens.confirm import ConfirmRequest, ConfirmScreen, HealthCheck


def pull_request(plan: LaunchPlan, check: HealthCheck) -> ConfirmRequest:
    recipe, cluster = plan.recipe, plan.cluster
    return ConfirmRequest(
        title=_("Pull {recipe} onto {cluster}").format(recipe=recipe, cluster=cluster),
        verb=_("Pull"), cluster=cluster,
        what=_("Puts {image} and {model} on every node of {cluster} that lacks them: "
               "fetched once, then copied node to node over the fabric, after a check of "
               "each node's free disk. Nothing is started or stopped, but the copies share "
               "the fabric with what serves. Below is what the nodes answer right now."
               ).format(image=plan.image, model=plan.model, cluster=cluster),
        check=check, affects=lambda w: False, typed=False,
        untouched=_("nothing is started or stopped"),
        stays=_("stays: a pull only adds files and images"))


class PullFlows:
    def __init__(self, host: Host, flows: Runs) -> None:
        self.host = host
        self.flows = flows

    def pull(self) -> None:
        """``P``: the selected recipe's image and model onto the cluster in focus."""
        self.flows.ask(Action.PULL, self._ask_selected)

    def offer(self, plan: LaunchPlan) -> None:
        """From a serve refused for a missing image or model: the same confirmation, for
        the plan that serve ran (the selection may have moved since)."""
        control = self.host.control(Action.PULL)
        if control is None or self.flows.refuse_while_busy():
            return
        self.flows.confirm(control, self._ask(plan))

    def _ask_selected(self) -> Ask | None:
        plan = self.flows.selected_plan()
        return None if plan is None else self._ask(plan)

    def _ask(self, plan: LaunchPlan) -> Ask:
        request = pull_request(plan, partial(self.host.fresh_health, plan.cluster))
        parts = PullParts(image=True, model=bool(plan.model))
        return Ask(ConfirmScreen(request), _("cancelled; nothing was pulled"), Action.PULL,
                   plan.cluster, plan.recipe,
                   lambda control, sink, run_id: workers.run_pull(
                       control, plan, parts, sink, self.flows.transfers(run_id), run_id))
