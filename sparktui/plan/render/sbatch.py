"""``plan -f sbatch``: the job script for a site that submits itself (``sbatch FILE``).

The plan's launches, each run on its node as one step of the job (``srun --nodelist``:
Slurm's own way onto an allocated node, where ``-f sh`` uses ``ssh``), in start order;
the job then waits on the head's container, and its end (``scancel``, the time limit, a
node lost) removes every container it started: the ``TERM`` Slurm sends first runs the
cleanup. Quoting as ``-f sh``'s (``sh.py``): every argv ``shlex.join``ed for the step's
shell, then quoted once more for the script's; every ``#SBATCH`` value is of the config's
grammar (``config.rules``), so none holds a newline.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from sparktui.config.runtime_name import RuntimeName
from sparktui.plan.model import LaunchPlan, SlurmPlan
from sparktui.plan.render.run_id import with_placeholder
from sparktui.plan.render.sh import comment, hook_line, launch_line
from sparktui.plan.render.sh_secrets import Secrets
from sparktui.plan.runtime import runtime_for

CLEANUP_SECONDS = 120
"""Before its time limit, the job's shell is sent TERM this long ahead: its cleanup steps
must run while the job still lives (once it has ended, Slurm refuses a new step)."""


def plan_nodes(plan: LaunchPlan) -> list[str]:
    return sorted({n.name for n in plan.nodes} | {i.node for s in plan.services
                                                 for i in s.instances})


def directives(plan: LaunchPlan, slurm: SlurmPlan, *, named: bool = True,
               exclude: Sequence[str] = ()) -> list[str]:
    """``#SBATCH`` lines: the plan's nodes by name, or (``named=False``) as many of the
    partition's, ``exclude`` (nodes outside the cluster's table) left out."""
    nodes = plan_nodes(plan)
    options = [("job-name", f"sparktui-{plan.recipe}"), ("partition", slurm.partition),
               ("nodes", str(len(nodes))), ("nodelist", ",".join(nodes) if named else None),
               ("exclude", ",".join(exclude) or None),
               ("ntasks-per-node", "1"), ("account", slurm.account), ("qos", slurm.qos),
               ("reservation", slurm.reservation), ("time", slurm.time_limit),
               ("output", f"sparktui-{plan.recipe}-%j.out"),  # engine/slurm/jobs.output_file
               ("signal", f"B:TERM@{CLEANUP_SECONDS}" if slurm.time_limit else None)]
    # --no-requeue: a node lost would requeue the job (Slurm's default), to launch again
    # later over containers its first run left; a serve is restarted by its supervisor
    return ["#SBATCH --exclusive", "#SBATCH --no-requeue",
            *(f"#SBATCH --{key}={value}" for key, value in options if value)]


def step_prefix(node: str, job: str | None = None) -> str:
    """The prefix that runs a shell command line on ``node`` as a step of this job (of
    job ``job``, from outside it: the launches of a plan resolved after allocation)."""
    return " ".join(shlex.quote(w) for w in [
        "srun", *([f"--jobid={job}"] if job else []), "--nodes=1", "--ntasks=1",
        f"--nodelist={node}", "--overlap", "--", "sh", "-c"])


def containers(plan: LaunchPlan) -> list[tuple[str, str, RuntimeName]]:
    """(node, container, runtime) of everything the plan starts."""
    return [(n.name, n.container, plan.runtime) for n in plan.nodes] + [
        (i.node, i.container, s.runtime) for s in plan.services for i in s.instances]


def cleanup_prefix(node: str) -> str:
    """The prefix that runs a shell command line on ``node`` in the cleanup (``ON_NODE``)."""
    return f"on {shlex.quote(node)}"


def removal_line(plan: LaunchPlan, node: str, name: str, runtime: RuntimeName) -> str:
    """``name`` removed on ``node`` in the background, its engine given the stop grace."""
    assert plan.slurm is not None
    r = runtime_for(runtime).removal(name, plan.slurm.stop_grace_seconds)
    return (f"{cleanup_prefix(node)} "
            f"{shlex.quote('; '.join(filter(None, (r.stop, r.remove))))} </dev/null & "
            'removing="$removing $!"')


def guard_line(node: str, removes: Sequence[str]) -> str:
    """A step on ``node`` that lasts as long as the job and runs ``removes`` when Slurm
    ends it: a job Slurm kills (a node lost, the time limit reached) takes no new step,
    but each node's own slurmd still signals the steps there."""
    quiet = [f"{r} >/dev/null 2>&1" for r in removes]  # most often gone already
    body = (f"trap {shlex.quote('; '.join([*quiet, 'exit 0']))} TERM; "
            "while :; do sleep 86400 & wait $!; done")
    return f"{step_prefix(node)} {shlex.quote(body)} </dev/null &"


def guard_lines(plan: LaunchPlan) -> list[str]:
    """Each node's guard (``guard_line``) of what the plan starts there."""
    by_node: dict[str, list[str]] = {}
    for node, name, runtime in containers(plan):
        by_node.setdefault(node, []).append(runtime_for(runtime).removal(name, 0).remove)
    return [*GUARD_HEAD, *(guard_line(node, removes) for node, removes in by_node.items())]


GUARD_HEAD = ["", "# each node's guard: a step lasting as long as the job; when Slurm ends the job",
              "# (a node lost, the time limit), each node's own slurmd signals its guard,",
              "# which removes what the job started there"]


CLEANUP_MARK = "sparktui: the job's cleanup starts"
"""Written to the job's output as its cleanup starts: what came before is what the job
said of its own end (``engine/slurm/site.output_tail``)."""
ON_NODE = ["", "# run $2 on node $1: here on the batch host itself, else as a step; a job Slurm",
           "# is killing (a node lost) takes no new step, but its batch host still cleans up",
           "on() {", 'if [ "$1" = "${SLURMD_NODENAME:-}" ]; then sh -c "$2"',
           'else srun --nodes=1 --ntasks=1 --nodelist="$1" --overlap -- sh -c "$2"; fi', "}"]
CLEANUP_HEAD = [*ON_NODE, "",
                "# the job's end (scancel, its time limit, a lost node) removes what it started,",
                "# then restores each node (its after_stop hooks), every step tried",
                "# (a second TERM, another scancel --batch, does not cut it short)",
                "cleanup() {", "trap '' TERM INT", "trap - EXIT", "set +e",
                f"printf '%s\\n' {shlex.quote(CLEANUP_MARK)} >&2", 'removing=""']


REMOVALS_WAITED = 'wait $removing  # every node\'s removal at once, then each node restored'


def start_lines(plan: LaunchPlan, step: Callable[[str], str], scripts: Mapping[str, str],
                secrets: Secrets) -> list[str]:
    """The before_serve hooks, the services and every launch, each a step on its node,
    in start order."""
    out: list[str] = []
    for node in plan.nodes:
        if node.before_serve:
            out += ["", comment(f"before serve on {node.name}")]
            out += [hook_line(node, step(node.name), s, scripts, secrets)
                    for s in node.before_serve]

    def services(phases: tuple[str, ...]) -> None:
        for service in plan.services:
            if service.start in phases:
                out.append("")
                out.append(comment(f"service {service.name} ({service.type}, {service.start})"))
                out.extend(launch_line(inst, step(inst.node),
                                       with_placeholder(service.runtime, inst.launch), secrets)
                           for inst in service.instances)

    services(("infra", "before_workers"))
    for name in plan.start_order:
        node = plan.node(name)
        out += ["", comment(f"launch on {node.name} (rank {node.rank}, {node.role})"),
                launch_line(node, step(name), with_placeholder(plan.runtime, node.launch),
                            secrets)]
    services(("after_frontend",))
    return out


@dataclass(frozen=True)
class SbatchJob:
    """The job script, and the secrets it takes from its submitter's environment (by
    variable name; ``sbatch`` exports that environment to the job)."""

    script: str
    env: dict[str, str]
    runnable: bool
    """False: a secret inside a command was written as stars; the script refuses to run."""


def render_sbatch(plan: LaunchPlan, *, scripts: Mapping[str, str]) -> str:
    """The job script; ``plan.slurm`` must be set (the CLI refuses a cluster without)."""
    return sbatch_job(plan, scripts=scripts).script


def sbatch_job(plan: LaunchPlan, *, scripts: Mapping[str, str]) -> SbatchJob:
    """``render_sbatch``'s script with what a submitter must hand it."""
    assert plan.slurm is not None
    secrets = Secrets()
    head = ["#!/bin/bash", *directives(plan, plan.slurm),
            comment(f"sparktui launch plan: recipe {plan.recipe} on cluster {plan.cluster}, "
                    "as one Slurm job (docs/slurm.md)"),
            "# Generated; each command's argv is quoted for the step's shell, then this one's.",
            "set -eu"]
    out = [*CLEANUP_HEAD, *(removal_line(plan, *c) for c in containers(plan))]
    out += [REMOVALS_WAITED]
    out += [hook_line(node, cleanup_prefix(node.name), s, scripts, secrets)
            for node in plan.nodes for s in node.after_stop]
    out += ["}", "trap cleanup TERM INT EXIT", *guard_lines(plan)]
    out += start_lines(plan, step_prefix, scripts, secrets)
    if plan.nodes:
        out += ["", "# the job lasts as long as the head's container; waited for in the",
                "# background, so a TERM to this shell (scancel --batch) runs the cleanup now",
                f"{step_prefix(plan.head.name)} "
                f"{shlex.quote(shlex.join(['docker', 'wait', plan.head.container]))} "
                "</dev/null &", "wait $!"]
    return assembled(head, out, secrets)


def assembled(head: list[str], body: list[str], secrets: Secrets) -> SbatchJob:
    """The script: its head, the secrets' checks, then ``body`` with every value passed
    by name scrubbed wherever else it shows."""
    body = secrets.scrubbed(body)  # first: a value it had to star makes the preamble refuse
    script = "\n".join([*head, *secrets.preamble(), *body]) + "\n"
    return SbatchJob(script, {n: secrets.by_name[n] for n in secrets.names
                              if n in secrets.by_name}, not secrets.masked_inside)
