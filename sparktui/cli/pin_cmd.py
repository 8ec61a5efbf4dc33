"""pin: write the digest the recipe's image resolved to on every node into the recipe.

``docker_image = "repo@sha256:..."``, so the recipe serves the same bytes until it is
pinned again, whatever its tag comes to mean. The digest is read from the nodes (every
node must have the same one) and checked before it is written (``plan/image_pin``).
"""

from __future__ import annotations

import argparse
import json

from sparktui.cli.context import config_from, recipes_dir_from, with_engine
from sparktui.config.discovery import find_recipe
from sparktui.config.loader import load_recipe
from sparktui.config.recipe_edit import pin_image
from sparktui.engine.api import ClusterControl
from sparktui.errors import EXIT_FAILED, EXIT_OK, EXIT_REFUSED, SparkError
from sparktui.i18n import _
from sparktui.plan.build import build_plan
from sparktui.plan.image_pin import DigestReport, PinSaid
from sparktui.said import Said
from sparktui.scrub import scrub
from sparktui.visible import visible

FAILED_CODES = frozenset({PinSaid.NO_ANSWER, PinSaid.NO_IMAGE, PinSaid.NO_DIGEST})
"""What a node could not say: the pin failed (1); anything else is a refusal (3)."""


def run_pin(args: argparse.Namespace) -> int:
    loaded = config_from(args)
    path = find_recipe(recipes_dir_from(args), args.recipe)
    plan = build_plan(loaded, load_recipe(path), args.cluster)

    async def go(engine: ClusterControl) -> DigestReport:
        return await engine.image_digests(plan)

    report = with_engine(loaded.config, go)
    result = report.result
    image = report.pinned_image
    written = False
    if image is not None:
        edit = pin_image(path, image)
        if not edit.ok:
            raise SparkError(edit.problems)
        written = True
    if args.json:
        print(scrub(json.dumps({**report.as_json(), "file": str(path), "written": written},
                               indent=2)))
    elif isinstance(result, str):
        print(visible(_("{recipe}: docker_image = \"{image}\" written to {file}").format(
            recipe=plan.recipe, image=image, file=path)))
    else:
        for refusal in result:
            print(scrub(visible(str(refusal))))
        print(_("nothing was written to {file}").format(file=path))
    return EXIT_OK if written else _exit_code(result)


def _exit_code(result: str | list[Said]) -> int:
    if isinstance(result, list) and result and all(r.code in FAILED_CODES for r in result):
        return EXIT_FAILED
    return EXIT_REFUSED
