"""``sparktui plan RECIPE``: the launch plan, computed offline, in three formats."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from sparktui.cli.context import config_from, recipe_from
from sparktui.config.scripts import known_scripts, script_text
from sparktui.errors import EXIT_OK
from sparktui.i18n import _
from sparktui.plan import build_plan
from sparktui.plan.render import FORMATS, render


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("plan", help=_("print the launch plan; runs nothing"),
                            description=_("Compute the launch plan for a recipe; never touches "
                                          "the network."))
    parser.add_argument("recipe", help=_("recipe name (folder in the recipes folder) or path"))
    parser.add_argument("--cluster", "-c", help=_("cluster name, unique prefix, or 'auto'"))
    parser.add_argument("--format", "-f", choices=FORMATS, default="text",
                        help=_("output format (default: text)"))
    parser.add_argument("-o", "--output", type=Path, metavar="FILE",
                        help=_("write to FILE instead of standard output"))
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    loaded = config_from(args)
    recipe = recipe_from(args, args.recipe)
    plan = build_plan(loaded, recipe, args.cluster)
    scripts = {alias: script_text(alias) for alias in known_scripts()} if args.format == "sh" \
        else None
    cfg = loaded.config
    text = render(plan, args.format, scripts=scripts, ssh_key_path=cfg.ssh_key_path,
                  known_hosts_path=cfg.known_hosts_path)
    if args.output is None:
        sys.stdout.write(text)
    else:
        _write_atomic(args.output, text, executable=args.format == "sh")
    return EXIT_OK


def _write_atomic(path: Path, text: str, executable: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(tmp, 0o755 if executable else 0o644)
    os.replace(tmp, path)
