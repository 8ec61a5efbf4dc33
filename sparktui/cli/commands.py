"""Argument definitions of the engine commands, and what each of them runs.

The parser is built for ``--help``, ``plan`` and the dashboard too, which run no engine
command: the modules that implement them (the engine, asyncio, the validated models
behind them) are imported by the runners at the end of this file, when one runs.
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Callable

from sparktui import exitcodes
from sparktui.cli.power_help import how_to_configure
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


class HelpFormatter(argparse.HelpFormatter):
    """Wraps the description; keeps the exit-code table's rows (indented lines) as rows,
    wrapped under their meaning."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        lines = []
        for line in text.splitlines():
            if line.startswith(" "):
                lines.append(textwrap.fill(line, width, initial_indent=indent,
                                           subsequent_indent=indent + " " * 7))
            else:
                lines.append(super()._fill_text(line, width, indent))
        return "\n".join(lines)


def add_command(sub: argparse._SubParsersAction, name: str, summary: str,
                description: str) -> argparse.ArgumentParser:
    """A subcommand with its one-line ``summary`` (the main --help), a ``description``
    (its own --help) and its exit codes as the epilog."""
    return sub.add_parser(name, help=summary, description=description,
                          epilog=exitcodes.epilog(name),
                          formatter_class=HelpFormatter)


def cluster_option(p: argparse.ArgumentParser, *, recipe: bool = False) -> None:
    what = (_("cluster name, unique prefix, or 'auto' (default: the only cluster, else "
              "auto: the smallest that fits the recipe)") if recipe
            else _("cluster name or unique prefix (default: the only cluster)"))
    p.add_argument("--cluster", "-c", metavar="CLUSTER", help=what)


def _share_model_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--share-model", action="store_true",
                   help=_("serve even when another recipe serves the same model name behind "
                          "the cluster's router: the router balances both"))


def _node_option(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--node", "-n", metavar="NODE", help=what)


def positive(text: str) -> int:
    if not text.isdecimal() or int(text) < 1:
        raise argparse.ArgumentTypeError(
            _("'{text}' is not a whole number above 0").format(text=text))
    return int(text)


def register_cluster(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "serve", _("launch a recipe on a cluster"), _(
        "Preflight every node, run the recipe's before_serve hooks, start the workers, "
        "then the head, and wait until the API answers /v1/models."))
    p.add_argument("recipe", help=_("recipe name (folder in the recipes folder) or path"))
    cluster_option(p, recipe=True)
    p.add_argument("-d", "--dry-run", action="store_true", help=_("print the plan, run nothing"))
    p.add_argument("--keep-on-failure", action="store_true",
                   help=_("leave started containers in place when serve fails"))
    p.add_argument("--force", action="store_true",
                   help=_("serve even when the memory fit says the model does not fit"))
    p.add_argument("--json", action="store_true",
                   help=_("one JSON line per step, then one with the result"))
    _share_model_option(p)
    p.set_defaults(run=_serve)

    p = add_command(sub, "recipes", _("list the recipes: engine, nodes, port, whether "
                                      "each fits the cluster"), _(
        "Every recipe of the recipes folder, as the dashboard's recipes pane lists it: "
        "its engine, the nodes its plan takes, the API's port, whether it fits the "
        "cluster (or why not) and its folder; the ones that fit first. Reads no node."))
    p.add_argument("--cluster", "-c", metavar="CLUSTER",
                   help=_("cluster name or unique prefix to fit them to (default: the "
                          "first, as the dashboard opens on it)"))
    p.add_argument("--json", action="store_true", help=_("one JSON object instead of text"))
    p.set_defaults(run=_recipes)

    p = add_command(sub, "fit", _("does the recipe's model fit each node's memory"), _(
        "Read the model's config and weights' size from each node's HF cache (from the Hub "
        "at HF_ENDPOINT when no node has the model) and the node's memory, and say per node: "
        "fits, tight (under 10% left) or does not fit, with the weights, the KV cache and the "
        "engine's own share. serve runs the same check."))
    p.add_argument("recipe", help=_("the recipe's name (a folder in the recipes search path)"))
    cluster_option(p, recipe=True)
    p.add_argument("--json", action="store_true", help=_("one JSON object instead of text"))
    p.set_defaults(run=_fit)

    p = add_command(sub, "stop", _("stop what runs on a cluster (health check first)"), _(
        "Show a fresh health check, ask for the cluster's name (or --yes), then remove the "
        "cluster's workloads and run their after_stop hooks. Nothing running: nothing to "
        "stop, exit 0."))
    cluster_option(p)
    p.add_argument("--recipe", metavar="RECIPE", help=_("only this recipe's workloads"))
    p.add_argument("--yes", action="store_true", help=_("confirm without a prompt"))
    p.set_defaults(run=_stop)

    p = add_command(sub, "restart", _("stop a recipe's whole group, then serve it again "
                                      "(health check first)"), _(
        "Show a fresh health check, ask for the cluster's name (or --yes), stop the recipe's "
        "workloads on every node (after_stop hooks run), then serve the same plan. A failed "
        "stop serves nothing; a serve that fails after the stop leaves the recipe down and "
        "says so."))
    p.add_argument("recipe", help=_("recipe name (folder in the recipes folder) or path"))
    cluster_option(p, recipe=True)
    p.add_argument("--yes", action="store_true", help=_("confirm without a prompt"))
    _share_model_option(p)
    p.set_defaults(run=_restart)

    p = add_command(sub, "supervise", _("serve a recipe and keep its group alive: restart "
                                        "the whole group when it fails (Ctrl+C ends)"), _(
        "Serve the recipe, then check its group every supervise_interval_seconds and "
        "restart the whole group when a check fails twice in a row. --on-node runs it in a "
        "container on the head, from an image built there once: --dockerfile prints its "
        "Dockerfile and how to build it."))
    p.add_argument("recipe", nargs="?", help=_("recipe name (not needed with --end)"))
    cluster_option(p, recipe=True)
    p.add_argument("--interval", type=seconds_at_least(0.2), metavar="SECONDS",
                   help=_("seconds between checks (default: supervise_interval_seconds)"))
    p.add_argument("--on-node", action="store_true",
                   help=_("run the supervisor in a container on the head (its image: "
                          "--dockerfile)"))
    p.add_argument("--dockerfile", action="store_true",
                   help=_("print the Dockerfile of the --on-node image, with how to build "
                          "it on the head, and exit"))
    p.add_argument("--end", action="store_true",
                   help=_("end the cluster's supervision, wherever it runs; nothing is "
                          "stopped"))
    p.add_argument("--json", action="store_true",
                   help=_("one JSON line per event, then one with the result (with --end: "
                          "one JSON object)"))
    p.add_argument("--mode", choices=("foreground", "on-node"), default="foreground",
                   help=argparse.SUPPRESS)  # what the on-node container says it is
    _share_model_option(p)
    p.set_defaults(run=_supervise)

    p = add_command(sub, "health", _("reachability, containers and the engine's API"), _(
        "What every node of the cluster runs, read from the nodes, and what the head's "
        "API answers (models, requests, KV cache)."))
    cluster_option(p)
    p.add_argument("--json", action="store_true",
                   help=_("as JSON, with a telemetry sample of every node and the head"))
    p.add_argument("--deep", action="store_true",
                   help=_("also ask the head for a one-token completion"))
    p.set_defaults(run=_health)

    p = add_command(sub, "top", _("live figures of every node and the head's engine"), _(
        "CPU, memory, GPU, HF cache disk of every node and the head's engine metrics, "
        "every telemetry_interval_seconds until Ctrl+C."))
    cluster_option(p)
    p.add_argument("--json", action="store_true", help=_("one NDJSON line per sample"))
    p.add_argument("--interval", type=seconds_at_least(0.2), metavar="SECONDS",
                   help=_("seconds between samples (default: telemetry_interval_seconds)"))
    # No short flag: -n is --node everywhere else.
    p.add_argument("--count", type=positive, metavar="N", help=_("stop after N samples"))
    p.set_defaults(run=_top)

    p = add_command(sub, "logs", _("container logs from one or every node"), _(
        "The logs of sparktui's workloads on the cluster, each line tagged with its node."))
    cluster_option(p)
    _node_option(p, _("only this node's logs"))
    p.add_argument("--recipe", metavar="RECIPE", help=_("only this recipe's workloads"))
    p.add_argument("-f", "--follow", action="store_true",
                   help=_("keep following new lines (Ctrl+C detaches; nothing stops)"))
    p.add_argument("--tail", type=int, default=100, metavar="LINES",
                   help=_("lines of each log to show first (default: 100)"))
    p.set_defaults(run=_logs)


def register_node(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "exec", _("run an alias or a command on every node (or one)"), _(
        "Run an [exec_aliases] entry of the config, or any command after --, on every "
        "node of the cluster at once, and print each node's output."))
    cluster_option(p)
    _node_option(p, _("only on this node"))
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help=_("seconds before a node's command is given up "
                          "(default: command_timeout_seconds)"))
    p.add_argument("command", nargs=argparse.REMAINDER,
                   help=_("an [exec_aliases] name, or -- COMMAND ..."))
    p.set_defaults(run=_exec)

    p = add_command(sub, "doctor", _("check every node: SSH, docker, GPU, memory, fabric"), _(
        "Check every node of the cluster: SSH, docker, the GPU, memory, disk of the HF "
        "cache, NICs, the fabric IP, the clock, and that images match across nodes."))
    cluster_option(p)
    p.add_argument("--image", action="append", default=[], metavar="IMAGE",
                   help=_("also compare this image's ID across nodes"))
    p.add_argument("--json", action="store_true", help=_("the checks as JSON"))
    p.set_defaults(run=_doctor)

    p = add_command(sub, "tmux", _("attach to a tmux-runtime engine session"), _(
        "Attach this terminal to the tmux session of a tmux-runtime engine on a node "
        "(over ssh -t); detach with the tmux prefix and d."))
    cluster_option(p)
    _node_option(p, _("the node to attach to (default: the head)"))
    p.set_defaults(run=_tmux)

    p = add_command(sub, "shell", _("a shell in a sparktui container on a node"), _(
        "Run docker exec -it in a sparktui container on a node (over ssh -t): bash if the "
        "image has it, else sh, or the --command given. Without a terminal, the command's "
        "input and output are this process's."))
    p.add_argument("recipe", nargs="?",
                   help=_("the recipe whose container (needed when several run there)"))
    cluster_option(p)
    _node_option(p, _("the node (default: the head)"))
    p.add_argument("--command", metavar="LINE",
                   help=_("run this shell line (sh -c) instead of an interactive shell"))
    p.set_defaults(run=_shell)

    p = add_command(sub, "inspect", _("a sparktui container's docker inspect, secrets "
                                      "masked"), _(
        "The container's image, image ID, command line, labels and env, then its full "
        "docker inspect; the Home Assistant token and every env value whose name ends in "
        "_TOKEN, _KEY, _SECRET or PASSWORD are masked."))
    p.add_argument("recipe", nargs="?",
                   help=_("the recipe whose container (needed when several run there)"))
    cluster_option(p)
    _node_option(p, _("the node (default: the head)"))
    p.add_argument("--json", action="store_true", help=_("docker inspect's JSON, masked"))
    p.set_defaults(run=_inspect)

    p = add_command(sub, "init-host-keys", _("record each node's SSH host key"), _(
        "Record the SSH host key of every node in sparktui's known_hosts; a changed key is "
        "reported and kept, never replaced."))
    p.add_argument("--cluster", "-c", metavar="CLUSTER",
                   help=_("only this cluster's nodes (default: every cluster's)"))
    p.set_defaults(run=_init_host_keys)


def register_power(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "power", _("power a cluster on, off, or switch between clusters "
                                    "through Home Assistant"), _(
        "Power through Home Assistant: each node's entity is its mains power; off shuts "
        "the nodes down over SSH first.") + "\n\n" + how_to_configure())
    actions = p.add_subparsers(dest="power_action", metavar="ACTION", required=True)

    def action(name: str, summary: str) -> argparse.ArgumentParser:
        return actions.add_parser(name, help=summary, description=summary,
                                  epilog=exitcodes.epilog("power"),
                                  formatter_class=HelpFormatter)

    q = action("on", _("turn on the entities, wait until the nodes answer SSH"))
    cluster_option(q)
    q.add_argument("--yes", action="store_true", help=_("confirm without a prompt"))
    q.set_defaults(run=_power)

    q = action("off", _("shut the nodes down over SSH, then turn off their "
                        "entities (health check first)"))
    cluster_option(q)
    q.add_argument("--yes", action="store_true", help=_("confirm without a prompt"))
    q.set_defaults(run=_power)

    q = action("switch", _("power off what only --from uses, power on all "
                           "of --to (health check first)"))
    q.add_argument("--from", dest="source", required=True, metavar="CLUSTER",
                   help=_("the cluster that goes down (nodes it shares with --to stay on)"))
    q.add_argument("--to", dest="target", required=True, metavar="CLUSTER",
                   help=_("the cluster that comes up"))
    q.add_argument("--yes", action="store_true", help=_("confirm without a prompt"))
    q.set_defaults(run=_power)


# -- runners: each imports its command's module only when it runs (test_cli_startup.py) --

def _serve(args: argparse.Namespace) -> int:
    from sparktui.cli import cluster_cmds

    return cluster_cmds.run_serve(args)


def _recipes(args: argparse.Namespace) -> int:
    from sparktui.cli import recipes_cmd

    return recipes_cmd.run_recipes(args)


def _fit(args: argparse.Namespace) -> int:
    from sparktui.cli import fit_cmd

    return fit_cmd.run_fit(args)


def _stop(args: argparse.Namespace) -> int:
    from sparktui.cli import cluster_cmds

    return cluster_cmds.run_stop(args)


def _restart(args: argparse.Namespace) -> int:
    from sparktui.cli import restart_cmd

    return restart_cmd.run_restart(args)


def _shell(args: argparse.Namespace) -> int:
    from sparktui.cli import container_cmds

    return container_cmds.run_shell(args)


def _inspect(args: argparse.Namespace) -> int:
    from sparktui.cli import container_cmds

    return container_cmds.run_inspect(args)


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
