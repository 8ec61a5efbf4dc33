"""Argument definitions of the engine commands, and what each of them runs.

The parser is built for ``--help``, ``plan`` and the dashboard too, which run no engine
command: the modules that implement them (the engine, asyncio, the validated models
behind them) are imported by the runners at the end of this file, when one runs.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from sparktui.i18n import _


def seconds_at_least(minimum: float) -> Callable[[str], float]:
    """An argparse ``type``: a number of seconds no lower than ``minimum``."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                _("'{text}' is not a number of seconds").format(text=text)) from None
        if not value >= minimum:  # NaN too
            raise argparse.ArgumentTypeError(
                _("must be at least {minimum} seconds").format(minimum=minimum))
        return value
    return parse


def register_cluster(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help=_("launch a recipe on a cluster"))
    p.add_argument("recipe")
    p.add_argument("--cluster", "-c")
    p.add_argument("-d", "--dry-run", action="store_true", help=_("print the plan, run nothing"))
    p.add_argument("--keep-on-failure", action="store_true",
                   help=_("leave started containers in place when serve fails"))
    p.add_argument("--force", action="store_true",
                   help=_("serve even when the memory fit says the model does not fit"))
    p.set_defaults(run=_serve)

    p = sub.add_parser("fit", help=_("does the recipe's model fit each node's memory: "
                                     "weights, KV cache, engine (exit 0 fits, 4 does not, "
                                     "5 unknown, 1 error)"))
    p.add_argument("recipe")
    p.add_argument("--cluster", "-c")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=_fit)

    p = sub.add_parser("stop", help=_("stop what runs on a cluster (health check first)"))
    p.add_argument("--cluster", "-c")
    p.add_argument("--recipe", help=_("only this recipe's workloads"))
    p.add_argument("--yes", action="store_true", help=_("confirm without a prompt"))
    p.set_defaults(run=_stop)

    p = sub.add_parser("supervise", help=_("serve a recipe and keep its group alive: restart "
                                           "the whole group when it fails (Ctrl+C ends)"))
    p.add_argument("recipe", nargs="?")
    p.add_argument("--cluster", "-c")
    p.add_argument("--interval", type=seconds_at_least(0.2), metavar="SECONDS",
                   help=_("seconds between checks (default: supervise_interval_seconds)"))
    p.add_argument("--on-node", action="store_true",
                   help=_("run the supervisor in a container on the head (docs/supervise.md)"))
    p.add_argument("--end", action="store_true",
                   help=_("end the cluster's supervision, wherever it runs; the group "
                          "keeps running"))
    p.add_argument("--mode", choices=("foreground", "on-node"), default="foreground",
                   help=argparse.SUPPRESS)  # what the on-node container says it is
    p.set_defaults(run=_supervise)

    p = sub.add_parser("health", help=_("reachability, containers and the engine's API"))
    p.add_argument("--cluster", "-c")
    p.add_argument("--json", action="store_true",
                   help=_("as JSON, with a telemetry sample of every node and the head"))
    p.add_argument("--deep", action="store_true",
                   help=_("also ask the head for a one-token completion"))
    p.set_defaults(run=_health)

    p = sub.add_parser("top", help=_("live figures of every node and the head's engine"))
    p.add_argument("--cluster", "-c")
    p.add_argument("--json", action="store_true", help=_("one NDJSON line per sample"))
    p.add_argument("--interval", type=seconds_at_least(0.2), metavar="SECONDS",
                   help=_("seconds between samples (default: telemetry_interval_seconds)"))
    p.add_argument("--count", "-n", type=int, metavar="N", help=_("stop after N samples"))
    p.set_defaults(run=_top)

    p = sub.add_parser("logs", help=_("container logs from one or every node"))
    p.add_argument("--cluster", "-c")
    p.add_argument("--node", "-n")
    p.add_argument("--recipe")
    p.add_argument("-f", "--follow", action="store_true")
    p.add_argument("--tail", type=int, default=100)
    p.set_defaults(run=_logs)


def register_node(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("exec", help=_("run an alias or a command on every node (or one)"))
    p.add_argument("--cluster", "-c")
    p.add_argument("--node", "-n")
    p.add_argument("--timeout", type=float)
    p.add_argument("command", nargs=argparse.REMAINDER,
                   help=_("an [exec_aliases] name, or -- COMMAND ..."))
    p.set_defaults(run=_exec)

    p = sub.add_parser("doctor", help=_("check every node: SSH, docker, GPU, memory, fabric"))
    p.add_argument("--cluster", "-c")
    p.add_argument("--image", action="append", default=[],
                   help=_("also compare this image's ID across nodes"))
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=_doctor)

    p = sub.add_parser("tmux", help=_("attach to a tmux-runtime engine session"))
    p.add_argument("--cluster", "-c")
    p.add_argument("--node", "-n")
    p.set_defaults(run=_tmux)

    p = sub.add_parser("init-host-keys", help=_("record each node's SSH host key"))
    p.add_argument("--cluster", "-c")
    p.set_defaults(run=_init_host_keys)


def register_power(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("power", help=_("power a cluster on, off, or switch between clusters "
                                       "through Home Assistant"))
    actions = p.add_subparsers(dest="power_action", metavar="ACTION", required=True)

    q = actions.add_parser("on", help=_("turn on the entities, wait until the nodes answer SSH"))
    q.add_argument("--cluster", "-c")
    q.add_argument("--yes", action="store_true", help=_("confirm without a prompt"))
    q.set_defaults(run=_power)

    q = actions.add_parser("off", help=_("shut the nodes down over SSH, then turn off their "
                                         "entities (health check first)"))
    q.add_argument("--cluster", "-c")
    q.add_argument("--yes", action="store_true", help=_("confirm without a prompt"))
    q.set_defaults(run=_power)

    q = actions.add_parser("switch", help=_("power off what only --from uses, power on all "
                                            "of --to (health check first)"))
    q.add_argument("--from", dest="source", required=True, metavar="CLUSTER")
    q.add_argument("--to", dest="target", required=True, metavar="CLUSTER")
    q.add_argument("--yes", action="store_true", help=_("confirm without a prompt"))
    q.set_defaults(run=_power)


# -- runners: each imports its command's module only when it runs (test_cli_startup.py) --

def _serve(args: argparse.Namespace) -> int:
    from sparktui.cli import cluster_cmds

    return cluster_cmds.run_serve(args)


def _fit(args: argparse.Namespace) -> int:
    from sparktui.cli import fit_cmd

    return fit_cmd.run_fit(args)


def _stop(args: argparse.Namespace) -> int:
    from sparktui.cli import cluster_cmds

    return cluster_cmds.run_stop(args)


def _supervise(args: argparse.Namespace) -> int:
    from sparktui.cli import supervise_cmd

    return supervise_cmd.run_supervise(args)


def _health(args: argparse.Namespace) -> int:
    from sparktui.cli import cluster_cmds

    return cluster_cmds.run_health(args)


def _logs(args: argparse.Namespace) -> int:
    from sparktui.cli import cluster_cmds

    return cluster_cmds.run_logs(args)


def _top(args: argparse.Namespace) -> int:
    from sparktui.cli import telemetry_cmds

    return telemetry_cmds.run_top(args)


def _exec(args: argparse.Namespace) -> int:
    from sparktui.cli import node_cmds

    return node_cmds.run_exec(args)


def _doctor(args: argparse.Namespace) -> int:
    from sparktui.cli import node_cmds

    return node_cmds.run_doctor(args)


def _tmux(args: argparse.Namespace) -> int:
    from sparktui.cli import node_cmds

    return node_cmds.run_tmux(args)


def _init_host_keys(args: argparse.Namespace) -> int:
    from sparktui.cli import node_cmds

    return node_cmds.run_init_host_keys(args)


def _power(args: argparse.Namespace) -> int:
    from sparktui.cli import power_cmds

    return power_cmds.run_power(args)
