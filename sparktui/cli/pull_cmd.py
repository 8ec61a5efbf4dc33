"""pull: the recipe's image onto every node of the cluster, after a fresh health check
and a confirmation (it moves tens of GB over a live cluster's fabric and fills disks).

A pull is its parts, in order (``parts``): today the image (``ClusterControl.pull_image``);
the model's snapshot joins as a second ``Part`` and an option to pick it. Each part
reports its steps and byte counts to the same view (``pull_view``); the first part that
fails ends the pull.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sparktui.cli.cluster_cmds import confirmed, print_health
from sparktui.cli.context import config_from, recipe_from, with_engine
from sparktui.cli.pull_view import PullView
from sparktui.engine.api import (
    ActionResult,
    ClusterControl,
    ProgressSink,
    Step,
    TransferSink,
)
from sparktui.errors import EXIT_FAILED, EXIT_OK, EXIT_REFUSED
from sparktui.i18n import _
from sparktui.labels import failed_where
from sparktui.plan.build import build_plan
from sparktui.plan.model import LaunchPlan
from sparktui.plan.pull.image import PullSaid
from sparktui.said import Said, text_json
from sparktui.scrub import scrub
from sparktui.visible import visible

REFUSALS = frozenset({PullSaid.UNTRUSTED, PullSaid.NO_IMAGES})
"""A part's failure that moved nothing by design: exit 3, as a refusal."""


@dataclass(frozen=True)
class Part:
    """One thing a pull puts on the nodes: its step and the engine's action for it."""

    step: Step
    run: Callable[[ClusterControl, LaunchPlan, ProgressSink, TransferSink],
                  Awaitable[ActionResult]]


IMAGE = Part(Step.PULL_IMAGE, lambda engine, plan, progress, transfers:
             engine.pull_image(plan, progress, transfers))


def parts(args: argparse.Namespace) -> list[Part]:
    """The parts ``args`` ask for, in order (``--image-only``: the image; the model's part
    is not built yet)."""
    return [IMAGE]


def ask(plan: LaunchPlan) -> bool:
    """The cluster's name typed back, as for a stop: a pull fills every node's disk."""
    prompt = _("Type the cluster name '{cluster}' to pull {image} onto its nodes: ").format(
        image=plan.image, cluster=plan.cluster)
    try:
        return input(scrub(prompt)).strip() == plan.cluster
    except EOFError:
        return False


def run_pull(args: argparse.Namespace) -> int:
    loaded = config_from(args)
    plan = build_plan(loaded, recipe_from(args, args.recipe), args.cluster)
    view = PullView(json=args.json, terminal=sys.stdout.isatty())

    async def go(engine: ClusterControl) -> int:
        health = await engine.health(plan.cluster)
        if not args.json:
            print_health(health)
        if not args.yes and not confirmed(
                lambda: ask(plan),
                _("refusing to pull without confirmation: pass --yes or run on a terminal"),
                _("cancelled; nothing was pulled")):
            return EXIT_REFUSED
        results: list[ActionResult] = []
        with view:
            for part in parts(args):
                results.append(await part.run(engine, plan, view.step, view.transfer))
                if not results[-1].ok:
                    break
        return ended(plan, results, view)

    try:
        return with_engine(loaded.config, go)
    except KeyboardInterrupt:
        print(_("interrupted: the copies under way were ended; run the pull again to "
                "finish"), file=sys.stderr)
        raise


def ended(plan: LaunchPlan, results: list[ActionResult], view: PullView) -> int:
    """The result said once more after the steps, its exit code."""
    failed = next((r for r in results if not r.ok), None)
    view.result(pull_result(plan, failed))
    if failed is None:
        if not view.json:
            print(visible(_("{image} is on every node of {cluster}").format(
            image=plan.image, cluster=plan.cluster)))
        return EXIT_OK
    if not view.json:
        print(visible(scrub(_("pull failed {where}: {detail}").format(
            where=failed_where(failed.failed_node, failed.failed_step),
            detail=failed.detail))), file=sys.stderr)
    refused = isinstance(failed.detail, Said) and failed.detail.code in REFUSALS
    return EXIT_REFUSED if refused else EXIT_FAILED


def pull_result(plan: LaunchPlan, failed: ActionResult | None) -> dict[str, Any]:
    """``pull --json``'s last line: the codes and values of how it went."""
    return {"result": "pulled" if failed is None else "failed", "recipe": plan.recipe,
            "cluster": plan.cluster, "image": plan.image,
            "failed_node": failed.failed_node if failed else None,
            "failed_step": failed.failed_step if failed else None,
            "detail": text_json(failed.detail) if failed and failed.detail else None}
