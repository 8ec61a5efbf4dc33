"""The two scripts of a serve on any N of a Slurm cluster's nodes (``allocate = "any"``).

Which nodes Slurm gives is known only once the job runs, and the plan (ranks, head,
rendezvous, pools) depends on it, so the work is split in two:

- the **holder** is the job: ``--nodes=N`` of the partition, the nodes outside the
  cluster's table excluded. It cannot know the plan, only what does not depend on which
  nodes: the containers' names (the engine's ``sparktui-RECIPE`` and the services'
  ``…--SERVICE-INDEX``, the same on every node) and the after_stop hooks (the
  recipe's). Its cleanup runs both on each node it holds; it finds its head as the plan
  will (the first of the table's nodes by rank that it holds), waits for the head's
  container to start, then lasts as long as it, as ``plan -f sbatch``'s job does. A
  serve that never launches does not hold the nodes: after ``LAUNCH_WAIT_LOOKS`` looks
  the job ends itself.
- the **steps**, run by the serve on the submit host once the plan is resolved on the
  allocation: the same before_serve hooks, services and launches as ``plan -f sbatch``'s,
  each ``srun --jobid=JOB`` onto its node.

Quoting as ``sbatch.py``'s: node names are of the config's grammar and quoted all the
same; nothing a node says reaches these scripts.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Mapping, Sequence

from sparktui.plan.model import LaunchPlan
from sparktui.plan.render.sbatch import (
    CLEANUP_HEAD,
    GUARD_HEAD,
    REMOVALS_WAITED,
    SbatchJob,
    assembled,
    cleanup_prefix,
    containers,
    directives,
    guard_line,
    plan_nodes,
    removal_line,
    start_lines,
    step_prefix,
)
from sparktui.plan.render.sh import comment, hook_line
from sparktui.plan.render.sh_secrets import Secrets
from sparktui.plan.runtime import runtime_for

LAUNCH_WAIT_LOOKS = 900
"""Looks (a second apart, each one step) for the head's container before the job lets
its nodes go: a serve resolves its plan and launches within seconds of the job's start
(its images were checked there first)."""

_HELD = ['held=" $(scontrol show hostnames "$SLURM_JOB_NODELIST" | tr \'\\n\' \' \')"',
         'holds() { case "$held" in *" $1 "*) return 0 ;; esac; return 1; }']


def _on_held(node: str, line: str) -> str:
    """``line`` run when the job holds ``node`` (on lines of its own: a hook's script
    comes as a here-document, whose end must stand alone)."""
    return f"if holds {shlex.quote(node)}; then\n{line}\nfi"


def holder_job(plan: LaunchPlan, ranked: Sequence[str], *, exclude: Sequence[str],
               scripts: Mapping[str, str]) -> SbatchJob:
    """The job holding any N nodes of ``ranked`` (the cluster's table, by rank); ``plan``
    is the one on its first N (names and hooks only are taken from it)."""
    assert plan.slurm is not None and plan.nodes
    secrets = Secrets()
    names = sorted({(name, runtime) for _node, name, runtime in containers(plan)})
    out = [*_HELD, *CLEANUP_HEAD]
    out += [_on_held(node, removal_line(plan, node, name, runtime))
            for node in ranked for name, runtime in names]
    out += [REMOVALS_WAITED]
    hooks = plan.nodes[0].after_stop  # the recipe's: the same on every node
    for node in ranked:
        on = dataclasses.replace(plan.nodes[0], name=node, local=False)
        out += [_on_held(node, hook_line(on, cleanup_prefix(node), s, scripts, secrets))
                for s in hooks]
    removes = [runtime_for(runtime).removal(name, 0).remove for name, runtime in names]
    out += ["}", "trap 'cleanup; exit 143' TERM INT", "trap cleanup EXIT", *GUARD_HEAD]
    out += [_on_held(node, guard_line(node, removes)) for node in ranked]
    out += ["",
            "# the head, as the plan resolved on these nodes will have it",
            'head=""', f"for node in {shlex.join(ranked)}; do",
            'if holds "$node"; then head=$node; break; fi', "done"]
    status = shlex.join(["docker", "container", "inspect", "--format", "{{.State.Status}}",
                         plan.head.container])
    on_head = ('srun --nodes=1 --ntasks=1 --nodelist="$head" --overlap -- sh -c '
               f"{shlex.quote(status)} </dev/null 2>/dev/null")
    out += ["", "# the serve resolves its plan on these nodes and starts each launch as a",
            "# step of this job (srun --jobid); its head's container is waited for",
            f"for look in $(seq {LAUNCH_WAIT_LOOKS}); do",
            f'state=$({on_head}) || state=""',
            'case "$state" in ""|created) sleep 1 & wait $! ;; *) break ;; esac', "done",
            'case "$state" in ""|created)',
            "printf '%s\\n' 'sparktui: no launch came: the nodes are let go' >&2; exit 1 ;;",
            "esac",
            "# the job lasts as long as the head's container (as plan -f sbatch's)",
            'srun --nodes=1 --ntasks=1 --nodelist="$head" --overlap -- sh -c '
            f"{shlex.quote(shlex.join(['docker', 'wait', plan.head.container]))} "
            "</dev/null &", "wait $!"]
    head = ["#!/bin/bash", *directives(plan, plan.slurm, named=False, exclude=exclude),
            comment(f"sparktui: recipe {plan.recipe} on any {len(plan_nodes(plan))} node(s) of "
                    f"cluster {plan.cluster}: the job holds them, the serve launches "
                    "(docs/slurm.md)"),
            "set -eu"]
    return assembled(head, out, secrets)


def steps_job(plan: LaunchPlan, job: str, *, scripts: Mapping[str, str]) -> SbatchJob:
    """``plan``'s launches (resolved on job ``job``'s nodes) as steps of that job."""
    secrets = Secrets()
    out = start_lines(plan, lambda node: step_prefix(node, job), scripts, secrets)
    head = ["#!/bin/bash",
            comment(f"sparktui: recipe {plan.recipe}'s launches on cluster {plan.cluster}, "
                    f"as steps of Slurm job {job}"),
            "set -eu"]
    return assembled(head, out, secrets)
