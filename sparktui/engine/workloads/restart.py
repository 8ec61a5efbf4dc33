"""Restart of a recipe's whole group: stop it, then serve the same plan again.

A failed stop serves nothing (the group may be half there); a serve that fails after
the stop leaves the recipe down, and the result says so (``down``). So a restart whose
serve would be refused is refused before its stop (``restart_refusal``): the CLI and the
dashboard ask the same function."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sparktui.engine.results import ActionResult, ProgressSink
from sparktui.engine.status import ClusterHealth
from sparktui.i18n import N_
from sparktui.said import Code, Said, said
from sparktui.visible import visible

if TYPE_CHECKING:
    from sparktui.engine.api import ClusterControl
    from sparktui.plan.after_stop import HooksFor
    from sparktui.plan.anywhere import Replan
    from sparktui.plan.model import LaunchPlan


@dataclass(frozen=True)
class Restarted:
    stopped: ActionResult
    served: ActionResult | None  # None: the stop failed, nothing was served

    @property
    def ok(self) -> bool:
        return self.stopped.ok and self.served is not None and self.served.ok

    @property
    def down(self) -> bool:
        """The stop went through and the serve did not: nothing of the recipe runs."""
        return self.stopped.ok and self.served is not None and not self.served.ok

    def result(self) -> ActionResult:
        """One result for a progress view: the failing half, with every step."""
        steps = [*self.stopped.steps, *(self.served.steps if self.served else [])]
        last = self.served if self.served is not None and self.stopped.ok else self.stopped
        return ActionResult(last.ok, last.failed_node, last.failed_step, last.detail, steps,
                            exit_code=last.exit_code)


async def restart(control: ClusterControl, plan: LaunchPlan, progress: ProgressSink, *,
                  hooks_for: HooksFor | None = None, replan: Replan | None = None
                  ) -> Restarted:
    stopped = await control.stop(plan.cluster, progress, recipe=plan.recipe,
                                 hooks_for=hooks_for)
    if not stopped.ok:
        return Restarted(stopped, None)
    return Restarted(stopped, await control.serve(plan, progress, replan=replan))


class RestartSaid(Code):
    NOTHING_RUNS = N_("nothing of {recipe} runs on {cluster}: nothing to restart (serve "
                      "starts it)")
    TAKEN = N_("refusing to restart {recipe}: {why}")


def nothing_runs(health: ClusterHealth, recipe: str | None) -> bool:
    """Every node said what it runs, and none runs anything (of ``recipe``): a node that
    did not answer may run something, so that is never "nothing"; nor is a Slurm job of
    the operator's serve that is pending or starting (or a Slurm that could not say), nor
    a live supervisor of it (between a restart's stop and its serve nothing shows, and it
    brings the group back unless a stop's mark ends it)."""
    if health.slurm is not None and health.slurm.holds(recipe):
        return False
    watched = health.supervision
    if watched is not None and watched.active and watched.lease is not None \
            and recipe in (None, watched.lease.recipe):
        return False
    return health.all_known and not any(recipe in (None, w.recipe) for w in health.workloads)


def restart_refusal(health: ClusterHealth, plan: LaunchPlan) -> Said | None:
    """Why ``plan``'s restart may not go ahead on what ``health`` saw (None: it may).
    ``RestartSaid.NOTHING_RUNS``: there is nothing to stop (serve starts it);
    ``RestartSaid.TAKEN``: another recipe serves one of its names behind the router, so
    the serve after the stop would be refused and leave the recipe down."""
    from sparktui.engine.router_names import taken  # the router's plan: not at import

    if nothing_runs(health, plan.recipe):
        return said(RestartSaid.NOTHING_RUNS, recipe=visible(plan.recipe),
                    cluster=visible(plan.cluster))
    why = taken(health, plan)
    return said(RestartSaid.TAKEN, recipe=visible(plan.recipe), why=why) if why else None
