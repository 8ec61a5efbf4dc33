"""``sparktui plan RECIPE``: the launch plan, computed offline, in three formats."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from sparktui.cli import plan_cache
from sparktui.config.discovery import find_config, find_recipe, recipe_dirs
from sparktui.errors import EXIT_OK, SparkError
from sparktui.i18n import _, active_language

# Names only: the renderers (and pydantic behind them) load on a cache miss.
FORMATS = ("text", "json", "sh")


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
    config_path = find_config(args.config)
    try:
        recipe_path = find_recipe(recipe_dirs(args.recipes), args.recipe)
    except SparkError:
        from sparktui.config import load_config

        load_config(config_path)  # a broken config is reported before a missing recipe
        raise
    digest = None
    if plan_cache.enabled():
        words = [args.format, args.cluster or "", active_language()]
        digest = plan_cache.key(config_path, recipe_path, words)
        text = plan_cache.lookup(digest)
    if digest is None or text is None:
        text = _compute(config_path, recipe_path, args.cluster, args.format)
        if digest is not None:
            plan_cache.store(digest, text)
    if args.output is None:
        sys.stdout.write(text)
    else:
        _write_atomic(args.output, text, executable=args.format == "sh")
    return EXIT_OK


def _compute(config_path: Path | None, recipe_path: Path, cluster: str | None,
             fmt: str) -> str:
    from sparktui.config import load_config, load_recipe
    from sparktui.config.scripts import known_scripts, script_text
    from sparktui.plan import build_plan
    from sparktui.plan.render import render

    loaded = load_config(config_path)
    plan = build_plan(loaded, load_recipe(recipe_path), cluster)
    scripts = {alias: script_text(alias) for alias in known_scripts()} if fmt == "sh" else None
    cfg = loaded.config
    return render(plan, fmt, scripts=scripts, ssh_key_path=cfg.ssh_key_path,
                  known_hosts_path=cfg.known_hosts_path)


def _write_atomic(path: Path, text: str, executable: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(tmp, 0o755 if executable else 0o644)
    os.replace(tmp, path)
