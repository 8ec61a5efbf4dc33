"""pull: the recipe's image and model onto every node of the cluster, after a fresh
health check and a confirmation (it moves tens of GB over a live cluster's fabric and
fills disks).

One engine operation (``ClusterControl.pull``: the image, then the model), as the
dashboard's ``P`` runs it; its steps and byte counts go to one view (``pull_view``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from sparktui.cli.cluster_cmds import confirmed, print_health
from sparktui.cli.context import config_from, recipe_from, with_engine
from sparktui.cli.pull_view import PullView
from sparktui.engine.api import ActionResult, ClusterControl, PullParts
from sparktui.errors import EXIT_FAILED, EXIT_OK, EXIT_REFUSED
from sparktui.i18n import _
from sparktui.labels import failed_where
from sparktui.plan.build import build_plan
from sparktui.plan.model import LaunchPlan
from sparktui.plan.pull.image import PullSaid
from sparktui.plan.pull.model import ModelSaid
from sparktui.said import Said, text_json
from sparktui.scrub import scrub
from sparktui.visible import visible

REFUSALS = frozenset({PullSaid.UNTRUSTED, PullSaid.NO_IMAGES, ModelSaid.BAD_LISTING,
                      ModelSaid.BAD_COMMIT, ModelSaid.BAD_REVISION, ModelSaid.BAD_PATH,
                      ModelSaid.BAD_SIZE, ModelSaid.BAD_HASH, ModelSaid.TOO_MANY,
                      ModelSaid.DISK_SHORT, ModelSaid.NO_IMAGE,
                      ModelSaid.NO_REPO})
"""A failure that moved nothing by design (a check before the first byte): exit 3."""


def parts(args: argparse.Namespace) -> PullParts:
    """What ``args`` ask for: both, or the one ``--image-only`` / ``--model-only`` names."""
    return PullParts(image=not args.model_only, model=not args.image_only)


def what(plan: LaunchPlan, wanted: PullParts) -> str:
    """What the pull puts on the nodes, as values: the image, the model, or both."""
    return " + ".join([*([plan.image] if wanted.image else []),
                       *([plan.model] if wanted.model and plan.model else [])])


def ask(plan: LaunchPlan, wanted: PullParts) -> bool:
    """The cluster's name typed back, as for a stop: a pull fills every node's disk."""
    prompt = _("Type the cluster name '{cluster}' to pull {image} onto its nodes: ").format(
        image=what(plan, wanted), cluster=plan.cluster)
    try:
        return input(scrub(prompt)).strip() == plan.cluster
    except EOFError:
        return False


def run_pull(args: argparse.Namespace) -> int:
    loaded = config_from(args)
    plan = build_plan(loaded, recipe_from(args, args.recipe), args.cluster)
    view = PullView(json=args.json, terminal=sys.stdout.isatty())
    wanted = parts(args)

    async def go(engine: ClusterControl) -> int:
        health = await engine.health(plan.cluster)
        if not args.json:
            print_health(health)
        if not args.yes and not confirmed(
                lambda: ask(plan, wanted),
                _("refusing to pull without confirmation: pass --yes or run on a terminal"),
                _("cancelled; nothing was pulled")):
            return EXIT_REFUSED
        with view:
            result = await engine.pull(plan, wanted, view.step, view.transfer)
        return ended(plan, wanted, result, view)

    try:
        return with_engine(loaded.config, go)
    except KeyboardInterrupt:
        print(_("interrupted: the copies under way were ended; run the pull again to "
                "finish"), file=sys.stderr)
        raise


def ended(plan: LaunchPlan, wanted: PullParts, result: ActionResult, view: PullView) -> int:
    """The result said once more after the steps, its exit code."""
    failed = None if result.ok else result
    view.result(pull_result(plan, wanted, failed))
    if failed is None:
        if not view.json:
            print(visible(pulled_line(plan, wanted)))
        return EXIT_OK
    if not view.json:
        print(visible(scrub(_("pull failed {where}: {detail}").format(
            where=failed_where(failed.failed_node, failed.failed_step),
            detail=failed.detail))), file=sys.stderr)
    refused = isinstance(failed.detail, Said) and failed.detail.code in REFUSALS
    return EXIT_REFUSED if refused else EXIT_FAILED


def pulled_line(plan: LaunchPlan, wanted: PullParts) -> str:
    model = wanted.model and bool(plan.model)
    if wanted.image and model:
        return _("{image} and {model} are on every node of {cluster}").format(
            image=plan.image, model=plan.model, cluster=plan.cluster)
    if model:
        return _("{model} is on every node of {cluster}").format(model=plan.model,
                                                                 cluster=plan.cluster)
    return _("{image} is on every node of {cluster}").format(image=plan.image,
                                                             cluster=plan.cluster)


def pull_result(plan: LaunchPlan, wanted: PullParts, failed: ActionResult | None
                ) -> dict[str, Any]:
    """``pull --json``'s last line: the codes and values of how it went."""
    return {"result": "pulled" if failed is None else "failed", "recipe": plan.recipe,
            "cluster": plan.cluster, "image": plan.image if wanted.image else None,
            "model": plan.model if wanted.model and plan.model else None,
            "failed_node": failed.failed_node if failed else None,
            "failed_step": failed.failed_step if failed else None,
            "detail": text_json(failed.detail) if failed and failed.detail else None}
