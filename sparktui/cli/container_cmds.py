"""shell and inspect: one container of sparktui's on one node."""

from __future__ import annotations

import argparse
import json
import os
import sys

from sparktui.cli.context import config_from, with_engine
from sparktui.config.models import Cluster, Node
from sparktui.engine.api import (
    ClusterControl,
    Described,
    NodeError,
    Workload,
    containers,
    recipes_of,
)
from sparktui.errors import EXIT_FAILED, EXIT_OK, fail
from sparktui.i18n import _
from sparktui.plan.cluster import pick_cluster
from sparktui.present.container import container_text
from sparktui.scrub import scrub


def _node(cluster: Cluster, name: str | None) -> Node:
    """``name`` of ``cluster``, or its head."""
    nodes = [n for n in cluster.ranked if name in (None, n.name)]
    if not nodes:
        raise fail("node_unknown", cluster=cluster.name, node=name,
                   known=[n.name for n in cluster.nodes])
    return nodes[0]


def _container(found: list[Workload], cluster: str, node: str, recipe: str | None,
               running: bool) -> Workload | None:
    """The one container meant, or None (said on stderr); several recipes: name one."""
    rows = containers(found, cluster, recipe, running=running)
    if not rows:
        tmux = [w for w in found if w.can_attach and recipe in (None, w.recipe)]
        print(_("no running sparktui container on {node}").format(node=node)
              + (" (" + _("{recipe} runs in tmux: sparktui tmux attaches to it").format(
                  recipe=tmux[0].recipe) + ")" if tmux else ""), file=sys.stderr)
        return None
    mine = [w for w in rows if w.cluster == cluster] or rows
    if recipe is None and len(recipes_of(mine)) > 1:
        raise fail("container_ambiguous", node=node, known=recipes_of(mine))
    return mine[0]


def _unanswered(exc: NodeError) -> int:
    print(scrub(f"{exc.node}: {exc.text}"), file=sys.stderr)
    return EXIT_FAILED


def run_shell(args: argparse.Namespace) -> int:
    """Hand the terminal to ``docker exec -it`` on the node (over ``ssh -t``)."""
    loaded = config_from(args)
    cluster = pick_cluster(loaded.config, args.cluster)
    node = _node(cluster, args.node)
    tty = sys.stdin.isatty() and sys.stdout.isatty()
    command = ["sh", "-c", args.command] if args.command is not None else []

    async def enter(engine: ClusterControl) -> list[str] | None:
        found = await engine.workloads(cluster.name, node.name)
        target = _container(found, cluster.name, node.name, args.recipe, running=True)
        return None if target is None else engine.shell_argv(cluster.name, target, command,
                                                             tty=tty)

    try:
        argv = with_engine(loaded.config, enter)
    except NodeError as exc:
        return _unanswered(exc)
    if argv is None:
        return EXIT_FAILED
    sys.stdout.flush()
    os.execvp(argv[0], argv)
    return EXIT_FAILED  # not reached


def run_inspect(args: argparse.Namespace) -> int:
    """The container's ``docker inspect``, secrets masked: a summary, or ``--json``."""
    loaded = config_from(args)
    cluster = pick_cluster(loaded.config, args.cluster)
    node = _node(cluster, args.node)

    async def go(engine: ClusterControl) -> Described | None:
        found = await engine.workloads(cluster.name, node.name)
        target = _container(found, cluster.name, node.name, args.recipe, running=False)
        return None if target is None else await engine.inspect(cluster.name, node.name,
                                                                 target.name)

    try:
        described = with_engine(loaded.config, go)
    except NodeError as exc:
        return _unanswered(exc)
    if described is None:
        return EXIT_FAILED
    if args.json:
        print(scrub(json.dumps(described.raw, indent=2)))
    else:
        sys.stdout.write(scrub(container_text(described)))
    return EXIT_OK
