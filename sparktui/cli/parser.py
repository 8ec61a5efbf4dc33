"""argparse layout: global options before the subcommand, as in git or docker."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sparktui import __version__, exitcodes
from sparktui.cli import bench_args, commands, pin_args, plan_cmd, pull_args, schema_cmd
from sparktui.errors import EXIT_BAD_INPUT, fail
from sparktui.i18n import _, translate_argparse


class _Parser(argparse.ArgumentParser):
    """Bad arguments exit 2 (bad input) with a one-line message, like every other input error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage()
        self.exit(EXIT_BAD_INPUT, _("{prog}: error: {message}").format(prog=self.prog,
                                                                      message=message) + "\n")


def build_parser() -> argparse.ArgumentParser:
    translate_argparse()
    parser = _Parser(prog="sparktui", description=_(
        "Launch and watch LLM inference on DGX Spark clusters. Without a command: the "
        "dashboard."), epilog=exitcodes.overview(),
        formatter_class=commands.HelpFormatter)
    parser.add_argument("--version", action="version", version=f"sparktui {__version__}",
                        help=_("show the version and exit"))
    parser.add_argument("--config", type=Path, metavar="FILE",
                        help=_("config file (default: $SPARKTUI_CONFIG, ./config.toml, "
                               "~/.config/sparktui/config.toml)"))
    parser.add_argument("--recipes", type=Path, metavar="DIR",
                        help=_("recipes folder (default: $SPARKTUI_RECIPES, else the first "
                               "folder that exists of ./recipes and "
                               "~/.config/sparktui/recipes, else the examples shipped with "
                               "sparktui)"))
    parser.add_argument("--lang", metavar="LANG", help=_("language: en, ru, es, it, fr, de"))
    parser.add_argument("--watch", action="store_true",
                        help=_("read-only dashboard for a wall screen"))
    parser.set_defaults(run=_run_dashboard)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    plan_cmd.register(sub)
    commands.register_cluster(sub)
    commands.register_node(sub)
    commands.register_power(sub)
    bench_args.register_bench(sub)
    pin_args.register_pin(sub)
    pull_args.register_pull(sub)
    schema_cmd.register(sub)
    return parser


def _run_dashboard(args: argparse.Namespace) -> int:
    # Without a terminal the dashboard would paint escape codes into a pipe or a file,
    # at full speed, for as long as nobody notices.
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise fail("no_terminal")
    from sparktui.cli.dashboard import run_dashboard  # Textual, only when it runs

    return run_dashboard(args)
