"""Slurm's commands, run on the cluster's submit host: submit, look, cancel.

The submit host is reached like a node (a node of the cluster by its name, this machine
for ``""``, else a host over SSH as ``ssh_user``), and every command is an argv quoted
once at the edge. The job script goes to ``sbatch`` on stdin, after the secrets it takes
from its environment (a line each, read into the submitting shell's variables: never in
an argv, never in a file). A command Slurm refused is a ``SlurmError`` naming the host
and what Slurm said; a job Slurm no longer knows is ``None`` (ended), never confused with
a look that failed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator, Mapping
from enum import StrEnum

from sparktui.config.models import Node
from sparktui.engine.remote.transport import NodeError, Transport, argv_command
from sparktui.engine.slurm.jobs import (
    FORMAT,
    JOB_ID,
    Job,
    SlurmStatus,
    ended,
    job_name,
    on_cluster,
    output_file,
    parse_job_id,
    parse_jobs,
    parse_sinfo,
)
from sparktui.plan.model import SlurmPlan
from sparktui.plan.render.sbatch import CLEANUP_MARK
from sparktui.plan.render.sh_secrets import reading

LOOK_SECONDS = 30.0
SUBMIT_SECONDS = 60.0
STEPS_SECONDS = 600.0
"""The launches of a plan resolved after allocation: its before_serve hooks run there."""
SAID_SHOWN = 300
OUTPUT_LINES_SHOWN, OUTPUT_LINE_SHOWN, OUTPUT_READ = 5, 200, 16_000
MAX_PENDING_READ = 100_000
"""Pending job ids read at most, for a job's place in the queue."""


class SlurmVerb(StrEnum):
    SUBMIT = "sbatch"
    LOOK = "squeue"
    CANCEL = "scancel"
    WHO = "id"
    NODES = "sinfo"
    STEPS = "srun"


class SlurmError(Exception):
    """Slurm (or the submit host) refused: ``verb`` what was asked, ``said`` its words."""

    def __init__(self, host: str, verb: SlurmVerb, said: str):
        super().__init__(f"{host}: {verb}: {said}")
        self.host, self.verb, self.said = host, verb, said


def submit_node(slurm: SlurmPlan, nodes: list[Node]) -> Node:
    """The node ``sbatch`` runs on: the cluster's node of that name, this machine, or
    the host over SSH (port 22, the config's ``ssh_user``)."""
    host = slurm.submit_host
    for node in nodes:
        if node.name == host:
            return node
    if not host:
        return Node(name="localhost", ssh_ip="127.0.0.1", rank=0, local=True)
    return Node(name=host, ssh_ip=host, rank=0)


class SlurmSite:
    """One cluster's Slurm, as its submit host reaches it."""

    def __init__(self, transport: Transport, slurm: SlurmPlan):
        self.t, self.slurm = transport, slurm
        self.host = transport.node.name

    async def _run(self, verb: SlurmVerb, argv: list[str], *, stdin: str | None = None,
                   timeout: float = LOOK_SECONDS, command: str | None = None) -> str:
        done = await self.t.run(command or argv_command(argv), stdin=stdin, timeout=timeout)
        if not done.ok:
            said = (done.stderr or done.stdout).strip()[:SAID_SHOWN]
            raise SlurmError(self.host, verb, said or f"exit status {done.exit_code}")
        return done.stdout

    def _with_env(self, verb: SlurmVerb, command: str, env: Mapping[str, str]
                  ) -> tuple[str, str]:
        """``command`` run with ``env`` read from stdin first (a line each, never in an
        argv), and the feed for that stdin."""
        names = list(env)
        if any("\n" in v or "\r" in v for v in env.values()):
            broken = next(n for n in names if "\n" in env[n] or "\r" in env[n])
            raise SlurmError(self.host, verb,
                             f"{broken} holds a line break: it cannot be handed over")
        return (reading(names, "exec " + command) if names else command,
                "".join(f"{env[n]}\n" for n in names))

    async def submit(self, script: str, env: Mapping[str, str]) -> str:
        """Submit ``script`` with ``env`` in its environment; the job's id."""
        argv = ["sbatch", "--parsable", "--export=ALL"]
        command, feed = self._with_env(SlurmVerb.SUBMIT, argv_command(argv), env)
        out = await self._run(SlurmVerb.SUBMIT, argv, stdin=feed + script,
                              timeout=SUBMIT_SECONDS, command=command)
        job = parse_job_id(out)
        if job is None:
            raise SlurmError(self.host, SlurmVerb.SUBMIT, f"no job id in {out.strip()[:80]!r}")
        return job

    async def run_steps(self, script: str, env: Mapping[str, str]) -> None:
        """``script`` (its lines ``srun --jobid`` steps of a running job) run by bash on
        the submit host, ``env`` in its environment: both on its stdin, the values first
        (as ``submit``'s). Every step of the script has a stdin of its own (/dev/null, a
        here-document or a pipe): none reads the rest of the script."""
        argv = ["bash", "-s"]
        command, feed = self._with_env(SlurmVerb.STEPS, argv_command(argv), env)
        await self._run(SlurmVerb.STEPS, argv, stdin=feed + script, timeout=STEPS_SECONDS,
                        command=command)

    def _squeue(self) -> list[str]:
        """Every job of the partition, any user's."""
        return ["squeue", "--noheader", f"--partition={self.slurm.partition}",
                f"--format={FORMAT}"]

    async def user_and_jobs(self) -> tuple[str, list[Job]]:
        """Who submits here (a job of another user is shown, never touched), and every
        job of the partition: one command, as a health check asks them at every look."""
        out = await self._run(SlurmVerb.LOOK, self._squeue(), command=" && ".join(
            [argv_command(["id", "-un"]), argv_command(self._squeue())]))
        user, _, jobs = out.partition("\n")
        return user.strip()[:64], parse_jobs(jobs)

    async def queue_place(self, job_id: str) -> tuple[int, int] | None:
        """Where ``job_id`` waits: its place among the partition's pending jobs in
        Slurm's priority order (1: next), and how many wait; None when it is not among
        them (started meanwhile, or ended)."""
        out = await self._run(SlurmVerb.LOOK, [
            "squeue", "--noheader", f"--partition={self.slurm.partition}",
            "--states=PENDING", "--sort=-Q,i", "--format=%i"])
        ids = [w for w in out.split()[:MAX_PENDING_READ] if JOB_ID.fullmatch(w)]
        return (ids.index(job_id) + 1, len(ids)) if job_id in ids else None

    async def output_tail(self, recipe: str, job_id: str) -> str:
        """The last lines the job wrote before its cleanup began (its ``--output`` file,
        where ``sbatch`` ran: the batch host writes it there on a shared home), each cut,
        " | "-joined; "" when it cannot be read here. What the job wrote is the node's
        text: shown through the terminal filter only."""
        path = output_file(recipe, job_id)
        done = await self.t.run(argv_command(["tail", "-c", str(OUTPUT_READ), "--", path]),
                                timeout=LOOK_SECONDS)
        if not done.ok:
            return ""
        lines = [line.strip()[:OUTPUT_LINE_SHOWN] for line in done.stdout.splitlines()]
        if CLEANUP_MARK in lines:
            lines = lines[:lines.index(CLEANUP_MARK)]
        return " | ".join([line for line in lines if line][-OUTPUT_LINES_SHOWN:])

    async def user(self) -> str:
        """Who submits here."""
        return (await self._run(SlurmVerb.WHO, ["id", "-un"])).strip()[:64]

    async def partition_nodes(self) -> dict[str, str]:
        """Each node of the partition (a name of the config's grammar), with its state."""
        return parse_sinfo(await self._run(SlurmVerb.NODES, [
            "sinfo", "--noheader", "--Node", f"--partition={self.slurm.partition}",
            "--format=%N %T"]))

    async def recipe_jobs(self, recipe: str) -> list[Job]:
        """The recipe's serve jobs, ended ones too (while Slurm still keeps them)."""
        return parse_jobs(await self._run(SlurmVerb.LOOK, [
            "squeue", "--noheader", "--states=all", f"--name={job_name(recipe)}",
            f"--format={FORMAT}"]))

    async def job(self, job_id: str) -> Job | None:
        """The job, or None when Slurm no longer lists it (it ended)."""
        done = await self.t.run(argv_command(["squeue", "--noheader", f"--jobs={job_id}",
                                              f"--format={FORMAT}"]), timeout=LOOK_SECONDS)
        said = (done.stderr or "").strip()
        if not done.ok and "Invalid job id" not in said:
            raise SlurmError(self.host, SlurmVerb.LOOK, said[:SAID_SHOWN]
                             or f"exit status {done.exit_code}")
        found = [j for j in parse_jobs(done.stdout) if j.id == job_id]
        return found[0] if found else None

    async def cancel(self, job: Job) -> None:
        """A running job's shell is sent TERM alone: its trap then runs the cleanup steps
        while the job still lives (a plain scancel ends the job first, and Slurm refuses
        those steps: "job has expired"). A pending job has nothing to clean. A job whose
        shell ended meanwhile (with its head's container) refuses it: asked again, that is
        no failure."""
        argv = ["scancel", job.id] if job.pending else [
            "scancel", "--batch", "--signal=TERM", job.id]
        try:
            await self._run(SlurmVerb.CANCEL, argv)
        except SlurmError:  # a job that ended meanwhile refuses it: no failure, if so
            if not ended(await self.job(job.id)):
                raise

    async def wait_ended(self, jobs: list[str], deadline: float,
                         gone: Callable[[str], None]) -> list[str]:
        """Look at ``jobs`` until each has ended (``gone`` told of each as it does) or the
        ``time.monotonic()`` deadline has passed; the ones still listed then."""
        waiting, pauses = list(jobs), looks()
        while waiting:
            seen = await asyncio.gather(*(self.job(j) for j in waiting))
            for job, now in zip(list(waiting), seen, strict=True):
                if ended(now):
                    waiting.remove(job)
                    gone(job)
            if waiting and time.monotonic() > deadline:
                break
            if waiting:
                await asyncio.sleep(next(pauses))
        return waiting


LOOK_PAUSE_SECONDS = 1.0
"""Between two looks at a job Slurm has not started yet, or whose containers are not up,
or that was cancelled: the first looks come sooner (``looks``), as most waits are short."""
SOON_SECONDS, SOON_LOOKS = 0.1, 40


def looks() -> Iterator[float]:
    """The pauses between looks: every 0.1 s for the first 4 s (where most waits end:
    a cleanup, a job started on idle nodes), then every ``LOOK_PAUSE_SECONDS``; one look
    is one ``squeue`` of one job."""
    for _soon in range(SOON_LOOKS):
        yield SOON_SECONDS
    while True:
        yield LOOK_PAUSE_SECONDS


async def slurm_status(site: SlurmSite, nodes: list[str]) -> SlurmStatus:
    """The cluster's jobs, for its health; a Slurm that does not answer is the error."""
    try:
        user, jobs = await site.user_and_jobs()
        return SlurmStatus(site.slurm.partition, user, on_cluster(jobs, nodes))
    except SlurmError as exc:
        return SlurmStatus(site.slurm.partition, error=str(exc)[:SAID_SHOWN])
    except NodeError as exc:
        return SlurmStatus(site.slurm.partition, error=str(exc.said))
