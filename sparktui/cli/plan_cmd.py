"""``sparktui plan RECIPE``: the launch plan, computed offline, in four formats."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sparktui.cli.commands import add_command
from sparktui.config.discovery import find_config, find_recipe, recipe_dirs
from sparktui.errors import EXIT_OK, SparkError, fail
from sparktui.i18n import _

# Names only: the renderers load when the plan is computed.
FORMATS = ("text", "json", "sh", "sbatch")


def register(sub: argparse._SubParsersAction) -> None:
    parser = add_command(sub, "plan", _("print the launch plan; runs nothing"),
                         _("Compute the launch plan for a recipe; never touches the network."))
    parser.add_argument("recipe", help=_("recipe name (folder in the recipes folder) or path"))
    parser.add_argument("--cluster", "-c", help=_("cluster name, unique prefix, or 'auto'"))
    parser.add_argument("--format", "-f", choices=FORMATS, default="text",
                        help=_("output format (default: text)"))
    parser.add_argument("-o", "--output", type=Path, metavar="FILE",
                        help=_("write to FILE instead of standard output"))
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from sparktui.config.loader import load_config, load_recipe

    config_path = find_config(args.config)
    try:
        recipe_path = find_recipe(recipe_dirs(args.recipes), args.recipe)
    except SparkError:
        load_config(config_path)  # a broken config is reported before a missing recipe
        raise
    loaded = load_config(config_path)
    text = _compute(loaded, load_recipe(recipe_path), args.cluster, args.format)
    if args.output is None:
        sys.stdout.write(text)
    else:
        from sparktui.cli.plan_output import write_plan

        write_plan(args.output, text, executable=args.format in ("sh", "sbatch"))
    return EXIT_OK


def _compute(loaded, recipe, cluster: str | None, fmt: str) -> str:
    from sparktui.config.image_record import last_digest
    from sparktui.config.scripts import known_script_texts
    from sparktui.plan.build import build_plan
    from sparktui.plan.image_pin import remembered
    from sparktui.plan.render import render
    from sparktui.plan.runtime import runtime_for

    plan = remembered(build_plan(loaded, recipe, cluster), last_digest)
    if fmt == "sbatch" and plan.slurm is None:
        raise fail("plan_no_slurm", cluster=plan.cluster)
    if fmt == "sbatch" and not runtime_for(plan.runtime).runs_image:
        raise fail("plan_sbatch_docker", recipe=plan.recipe, runtime=plan.runtime)
    scripts = known_script_texts() if fmt in ("sh", "sbatch") else None
    cfg = loaded.config
    return render(plan, fmt, scripts=scripts, ssh_key_path=cfg.ssh_key_path,
                  known_hosts_path=cfg.known_hosts_file)
