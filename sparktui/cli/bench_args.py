"""Arguments of ``sparktui bench``, and its runner (which imports the command's module
only when it runs, as ``commands``' runners do)."""

from __future__ import annotations

import argparse

from sparktui.cli.commands import add_command, cluster_option, positive
from sparktui.i18n import _
from sparktui.plan.bench import VIAS


def register_bench(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "bench", _("benchmark the served model; list and compare runs"), _(
        "Drive NVIDIA's aiperf against the serving head (as health finds it), or the "
        "cluster's router when it holds the model, at each concurrency level, keep the "
        "result with what was measured (recipe, plan, image IDs, engine version, tool "
        "and settings) in the data folder, and show it. "
        "Ctrl+C stops the load and keeps what was measured."))
    p.add_argument("recipe", nargs="?", help=_("the serving recipe (default: the only one)"))
    cluster_option(p)
    p.add_argument("--concurrency", default="1,4,16", metavar="LIST",
                   help=_("concurrency levels, comma-separated (default: 1,4,16)"))
    p.add_argument("--input-tokens", type=positive, default=128, metavar="N",
                   help=_("prompt length in tokens (default: 128)"))
    p.add_argument("--output-tokens", type=positive, default=128, metavar="N",
                   help=_("tokens generated per request (default: 128)"))
    p.add_argument("--requests", type=positive, metavar="N",
                   help=_("requests per level (default: 4 x the concurrency, at least 8)"))
    p.add_argument("--tokenizer", metavar="NAME_OR_PATH",
                   help=_("the tokenizer aiperf counts tokens with (default: the model's, "
                          "from Hugging Face)"))
    p.add_argument("--via", choices=VIAS, default="auto", help=_(
        "where the load goes: the cluster's router when it holds the model, else the "
        "head (auto, the default); or insist on head or router"))
    p.add_argument("--json", action="store_true", help=_("as JSON"))
    what = p.add_mutually_exclusive_group()
    what.add_argument("--list", action="store_true", help=_("list the runs kept"))
    what.add_argument("--compare", nargs=2, metavar=("A", "B"),
                      help=_("compare two runs (ids, unique prefixes or files)"))
    p.set_defaults(run=_bench)


def _bench(args: argparse.Namespace) -> int:
    from sparktui.cli import bench_cmd

    return bench_cmd.run_bench(args)
