"""exec, doctor, tmux, init-host-keys: commands about the nodes themselves."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import sys

from sparktui.cli.context import config_from, with_engine
from sparktui.engine.api import (
    FAIL,
    ClusterControl,
    KeyOutcome,
    NodeError,
    foreign_line,
    init_host_keys,
    known_hosts_path,
)
from sparktui.errors import EXIT_FAILED, EXIT_OK, SparkError, fail
from sparktui.i18n import _
from sparktui.plan.cluster import pick_cluster
from sparktui.present.doctor import doctor_lines
from sparktui.scrub import scrub


def run_exec(args: argparse.Namespace) -> int:
    loaded = config_from(args)
    words = list(args.command)
    aliases = sorted(loaded.config.exec_aliases)
    if not words or words == ["--"]:
        raise (fail("exec_nothing", known=aliases) if aliases else fail("exec_no_aliases"))
    if words[:1] == ["--"]:
        command = shlex.join(words[1:])
    elif len(words) == 1 and words[0] in loaded.config.exec_aliases:
        command = loaded.config.exec_aliases[words[0]]
    else:
        raise fail("exec_alias_unknown", alias=" ".join(words), known=aliases or _("none"))
    cluster = pick_cluster(loaded.config, args.cluster)
    if args.node and args.node not in {n.name for n in cluster.nodes}:
        raise fail("node_unknown", cluster=cluster.name, node=args.node,
                   known=[n.name for n in cluster.nodes])
    results = with_engine(loaded.config, lambda e: e.exec(cluster.name, command, node=args.node,
                                                           timeout=args.timeout))
    worst = EXIT_OK
    for r in results:
        code = _("unreachable") if r.exit_code is None else f"exit {r.exit_code}"
        print(f"== {r.node} ({code})" + (f": {r.error}" if r.error else ""))
        if r.stdout:
            sys.stdout.write(r.stdout if r.stdout.endswith("\n") else r.stdout + "\n")
        if r.stderr:
            sys.stdout.write(r.stderr if r.stderr.endswith("\n") else r.stderr + "\n")
        if r.exit_code != 0:
            worst = EXIT_FAILED
    return worst


def run_doctor(args: argparse.Namespace) -> int:
    loaded = config_from(args)
    cluster = pick_cluster(loaded.config, args.cluster)
    checks = with_engine(loaded.config, lambda e: e.doctor(cluster.name, args.image))
    if args.json:
        print(json.dumps([c.as_dict() for c in checks], indent=2))
    else:
        for line in doctor_lines(checks):
            print(line)
    return EXIT_FAILED if any(c.status == FAIL for c in checks) else EXIT_OK


def run_tmux(args: argparse.Namespace) -> int:
    """Hand the terminal to ``ssh -t node tmux attach`` (or local tmux)."""
    loaded = config_from(args)
    cluster = pick_cluster(loaded.config, args.cluster)
    nodes = [n for n in cluster.ranked if args.node in (None, n.name)]
    if not nodes:
        raise fail("node_unknown", cluster=cluster.name, node=args.node,
                   known=[n.name for n in cluster.nodes])
    node = nodes[0]

    async def attach(engine: ClusterControl) -> list[str] | None:
        sessions = await engine.sessions(cluster.name, node.name)
        return engine.attach_argv(cluster.name, sessions[0]) if sessions else None

    try:  # tmux's sessions: the node's docker, down or not, has no say in them
        argv = with_engine(loaded.config, attach)
    except NodeError as exc:
        print(scrub(f"{exc.node}: {exc.text}"), file=sys.stderr)
        return EXIT_FAILED
    if argv is None:
        print(_("no sparktui tmux session on {node}").format(node=node.name), file=sys.stderr)
        return EXIT_FAILED  # like logs with nothing to show: the node answered, none runs
    os.execvp(argv[0], argv)
    return EXIT_FAILED  # not reached


def run_init_host_keys(args: argparse.Namespace) -> int:
    loaded = config_from(args)
    cfg = loaded.config
    clusters = [pick_cluster(cfg, args.cluster)] if args.cluster else cfg.clusters
    seen, nodes = set(), []
    for cluster in clusters:
        for n in cluster.ranked:
            if (n.ssh_ip, n.ssh_port) not in seen:
                seen.add((n.ssh_ip, n.ssh_port))
                nodes.append(n)
    if all(n.local for n in nodes):  # commands run here, not over SSH: no key to record
        print(_("nothing to record: {nodes} run on this machine, without SSH").format(
            nodes=", ".join(n.name for n in nodes)))
        return EXIT_OK
    path = known_hosts_path(cfg)
    if cfg.known_hosts_path and (line := foreign_line(path)) is not None:
        # named at the config's line: the setting is what to fix (the engine refuses too)
        raise SparkError(loaded.source.problem("known_hosts_foreign", ("known_hosts_path",),
                                               path=path, bad_line=line))
    results = asyncio.run(init_host_keys(cfg, nodes))
    worst = EXIT_OK
    for r in results:
        if r.outcome == KeyOutcome.CHANGED:
            print(_("WARNING: {node}: HOST KEY CHANGED ({fingerprint}); the recorded key in "
                    "{where} was kept. If the node was reinstalled, remove that line by hand.")
                  .format(node=r.node, fingerprint=r.fingerprint, where=r.detail),
                  file=sys.stderr)
            worst = EXIT_FAILED
        elif r.outcome == KeyOutcome.FAILED:
            print(f"{r.node}: {_('failed')}: {r.detail}", file=sys.stderr)
            worst = EXIT_FAILED
        else:
            label = _("recorded") if r.outcome == KeyOutcome.NEW else _("unchanged")
            print(f"{r.node}: {label} {r.fingerprint}")
    print(_("known hosts: {path}").format(path=known_hosts_path(cfg)))
    return worst
