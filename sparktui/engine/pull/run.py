"""A pull as the front-ends ask for it: the image first, then the model.

Why in this order: the model is downloaded on a node by the Hugging Face client the
recipe's own image carries (engine/pull/model.py), so a node needs the image before it can
fetch the model; and a refused or failed image pull ends the pull before any model byte
moves (nothing half-done: what was pulled stays pulled, and is said).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from sparktui.engine.pull.transfer import PullParts, TransferSink
from sparktui.engine.results import ActionResult, ProgressSink
from sparktui.plan.model import LaunchPlan

PullPart = Callable[[LaunchPlan, ProgressSink, TransferSink], Awaitable[ActionResult]]


async def pull(plan: LaunchPlan, parts: PullParts, progress: ProgressSink,
               transfers: TransferSink, *, image: PullPart, model: PullPart) -> ActionResult:
    done: list[ActionResult] = []
    if parts.image:
        result = await image(plan, progress, transfers)
        done.append(result)
        if not result.ok:
            return _together(done)
    if parts.model and plan.model:
        done.append(await model(plan, progress, transfers))
    return _together(done)


def _together(results: list[ActionResult]) -> ActionResult:
    """One result: the last part's end (the failed one, if any), every part's steps."""
    if not results:
        return ActionResult(True)
    last = results[-1]
    return ActionResult(last.ok, last.failed_node, last.failed_step, last.detail,
                        [step for r in results for step in r.steps],
                        [o for r in results for o in r.outcomes], last.exit_code)
