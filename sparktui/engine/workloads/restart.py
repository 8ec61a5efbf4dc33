"""Restart of a recipe's whole group: stop it, then serve the same plan again.

A failed stop serves nothing (the group may be half there); a serve that fails after
the stop leaves the recipe down, and the result says so (``down``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sparktui.engine.results import ActionResult, ProgressSink

if TYPE_CHECKING:
    from sparktui.engine.api import ClusterControl
    from sparktui.plan.after_stop import HooksFor
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
                  hooks_for: HooksFor | None = None) -> Restarted:
    stopped = await control.stop(plan.cluster, progress, recipe=plan.recipe,
                                 hooks_for=hooks_for)
    if not stopped.ok:
        return Restarted(stopped, None)
    return Restarted(stopped, await control.serve(plan, progress))
