"""serve on a Slurm cluster: the same preflight, then one job instead of the launches.

The job (``plan -f sbatch``'s script) runs the before_serve hooks, the services and every
launch as steps on its nodes; while it is pending, Slurm's reason is said at each look
(``Priority``, ``Resources``, ``ReqNodeNotAvail``). Once it runs, each node's container
is waited for, then readiness is the same as over SSH. A failure, or Ctrl+C at any point
after the submission, cancels the job: Slurm's TERM runs its cleanup (every container it
started removed), and the serve waits until Slurm no longer lists it, so nothing is left
that the serve does not name.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any

from sparktui.engine.remote.transport import NodeError, Transport
from sparktui.engine.services.launch import ServiceRunner
from sparktui.engine.slurm.jobs import ACTIVE, Job, ended, output_file
from sparktui.engine.slurm.site import SlurmError, SlurmSite, looks
from sparktui.engine.workloads.hooks import StepFailed
from sparktui.engine.workloads.serve import Serve
from sparktui.errors import SparkError
from sparktui.i18n import N_
from sparktui.plan.anywhere import Replan
from sparktui.plan.render.sbatch import SbatchJob, plan_nodes, sbatch_job
from sparktui.plan.render.sbatch_any import holder_job, steps_job
from sparktui.plan.runtime import runtime_for
from sparktui.said import Code, Layout, Said, Text, joined, said
from sparktui.steps import Step, StepState

CANCEL_WAIT_SECONDS = 120.0
"""How long a cancelled job's cleanup is waited for before it is named as left."""


class SlurmSaid(Code):
    SUBMITTED = N_("job {job} submitted from {host} to partition {partition}")
    PENDING = N_("job {job} pending: {reason}")
    PENDING_AT = N_("job {job} pending: {reason} ({place} of {waiting} waiting in the "
                    "partition, by priority)")
    RUNNING = N_("job {job} runs on {nodes}")
    ENDED = N_("job {job} ended before {node} had its container ({state})")
    GONE = N_("job {job} ended before it ran ({state})")
    OUTPUT = N_("its output {file} ends: {lines}")
    LEFT = N_("Slurm job {job}")
    CANCELLED = N_("job {job} cancelled; its cleanup removed what it started")
    CANCEL_SLOW = N_("job {job} was cancelled but Slurm still lists it after {seconds} s")
    REFUSED = N_("{host}: {verb} refused: {said}")
    DOCKER_ONLY = N_("a Slurm cluster runs its launches in containers: runtime {runtime} "
                     "cannot be a job's step")
    RESOLVED = N_("job {job} holds {nodes}: the plan is resolved there, head {head}")
    NOT_OURS = N_("job {job} was given {nodes}: not the cluster's {want} nodes of its table")
    REPLAN = N_("job {job}: the plan could not be resolved on its nodes ({problem})")
    SECRET_INSIDE = N_("a secret sits inside a command of this recipe: a Slurm job cannot "
                       "take it from its environment; pass it as an env entry instead")


def refused(exc: SlurmError) -> Text:
    return said(SlurmSaid.REFUSED, host=exc.host, verb=str(exc.verb), said=exc.said)


class SlurmServe(Serve):
    """``Serve`` whose start is one job submitted on ``site``."""

    def __init__(self, *args: Any, site: SlurmSite, scripts_by_name: Mapping[str, str],
                 replan: Replan | None = None, table: Mapping[str, Transport] | None = None,
                 **kwargs: Any) -> None:
        """``replan`` set: the job holds any N nodes of ``table`` (the cluster's, by rank),
        and the plan is resolved on the ones it got (``plan.anywhere``)."""
        super().__init__(*args, **kwargs)
        self.site = site
        self.scripts_by_name = scripts_by_name
        self.replan, self.table = replan, table or {}
        self.job: str | None = None

    def _runnable(self, job: SbatchJob) -> None:
        head = self.plan.head.name
        if not runtime_for(self.plan.runtime).runs_image:
            raise StepFailed(head, Step.SLURM, said(SlurmSaid.DOCKER_ONLY,
                                                    runtime=self.plan.runtime))
        if not job.runnable:
            raise StepFailed(head, Step.SLURM, said(SlurmSaid.SECRET_INSIDE))

    async def _submit(self, job: SbatchJob) -> Job:
        """The job submitted, then waited for until Slurm runs it."""
        self._runnable(job)
        assert self.plan.slurm is not None
        self._say(Step.SLURM, None, StepState.STARTED, self.plan.slurm.partition)
        try:
            self.job = await self.site.submit(job.script, job.env)
        except SlurmError as exc:
            raise StepFailed(self.site.host, Step.SLURM, refused(exc)) from None
        self._say(Step.SLURM, self.site.host, StepState.OK, said(
            SlurmSaid.SUBMITTED, job=self.job, host=self.site.host,
            partition=self.plan.slurm.partition))
        running = await self._until_running(self.job)
        self._say(Step.SLURM, None, StepState.OK, said(SlurmSaid.RUNNING, job=self.job,
                                                       nodes=", ".join(running.nodes)))
        return running

    async def _before_preflight(self) -> None:
        """Any N nodes: the job that holds them first, then the plan resolved on them;
        the preflight then checks the nodes the job got."""
        if self.replan is None:
            return
        try:
            exclude = [n for n in await self.site.partition_nodes() if n not in self.table]
        except SlurmError as exc:
            raise StepFailed(self.site.host, Step.SLURM, refused(exc)) from None
        running = await self._submit(holder_job(
            self.plan, list(self.table), exclude=exclude, scripts=self.scripts_by_name))
        want = len(plan_nodes(self.plan))
        if len(running.nodes) != want or any(n not in self.table for n in running.nodes):
            raise StepFailed(self.site.host, Step.SLURM, said(
                SlurmSaid.NOT_OURS, job=self.job, nodes=", ".join(running.nodes), want=want))
        try:
            self.plan = self.replan(running.nodes)
        except SparkError as exc:
            raise StepFailed(self.site.host, Step.SLURM, said(
                SlurmSaid.REPLAN, job=self.job, problem=exc.problems[0].code)) from None
        self.t = {n: self.table[n] for n in plan_nodes(self.plan)}
        self.services = ServiceRunner(self.t, self._say)
        self._say(Step.SLURM, None, StepState.OK, said(
            SlurmSaid.RESOLVED, job=self.job, nodes=", ".join(running.nodes),
            head=self.plan.head.name))

    async def _start(self) -> None:
        if self.replan is None:
            await self._submit(sbatch_job(self.plan, scripts=self.scripts_by_name))
        else:
            assert self.job is not None
            steps = steps_job(self.plan, self.job, scripts=self.scripts_by_name)
            self._runnable(steps)
            try:
                await self.site.run_steps(steps.script, steps.env)
            except SlurmError as exc:
                raise StepFailed(self.site.host, Step.LAUNCH, refused(exc)) from None
        assert self.job is not None
        await self._until_containers(self.job)

    async def _look(self, job_id: str) -> Job | None:
        try:
            return await self.site.job(job_id)
        except SlurmError as exc:
            raise StepFailed(self.site.host, Step.SLURM, refused(exc)) from None

    async def _until_running(self, job_id: str) -> Job:
        said_now: tuple[str, tuple[int, int] | None] | None = None
        pauses = looks()
        while True:
            job = await self._look(job_id)
            if job is None or job.state not in ACTIVE:
                raise StepFailed(self.plan.head.name, Step.SLURM, await self._with_output(
                    job_id, said(SlurmSaid.GONE, job=job_id,
                                 state=job.state if job else "ended")))
            if job.running:
                return job
            reason = job.reason if job.pending else job.state  # CONFIGURING: nodes boot
            place = await self._place(job_id) if job.pending else None
            if (reason, place) != said_now:  # said when it changes, not at every look
                said_now = (reason, place)
                self._say(Step.SLURM, None, StepState.WAITING, said(
                    SlurmSaid.PENDING, job=job_id, reason=reason) if place is None else said(
                    SlurmSaid.PENDING_AT, job=job_id, reason=reason, place=place[0],
                    waiting=place[1]))
            await asyncio.sleep(next(pauses))

    async def _with_output(self, job_id: str, why: Said) -> Text:
        """``why``, and the last lines the job wrote (what failed in it), when readable."""
        try:
            lines = await self.site.output_tail(self.plan.recipe, job_id)
        except NodeError:
            lines = ""
        return joined(Layout.SEMICOLON, why, said(
            SlurmSaid.OUTPUT, file=output_file(self.plan.recipe, job_id), lines=lines)) \
            if lines else why

    async def _place(self, job_id: str) -> tuple[int, int] | None:
        """The job's place in the queue, or None when Slurm could not say it (the reason
        is said all the same; the next look at the job itself names a Slurm gone)."""
        try:
            return await self.site.queue_place(job_id)
        except (SlurmError, NodeError):
            return None

    async def _until_containers(self, job_id: str) -> None:
        """Each node's container has started (the job's steps start them in start order);
        a job that ends first is a failure naming the node still without one."""
        waiting = [self.plan.node(n) for n in self.plan.start_order]
        pauses = looks()
        while waiting:
            try:  # created is not yet started: docker run -d creates, then starts
                there = [not (st := await self.driver.state(self.t[n.name], n.container)
                              ).missing and st.status != "created" for n in waiting]
            except NodeError as exc:
                raise StepFailed(exc.node, Step.LAUNCH, exc.said) from None
            for node, up in zip(list(waiting), there, strict=True):
                if up:
                    waiting.remove(node)
                    self.started.append(node)
                    self._say(Step.LAUNCH, node.name, StepState.OK, node.container)
            if not waiting:
                return
            job = await self._look(job_id)
            if job is None or job.state not in ACTIVE:
                raise StepFailed(waiting[0].name, Step.LAUNCH, await self._with_output(
                    job_id, said(SlurmSaid.ENDED, job=job_id, node=waiting[0].name,
                                 state=job.state if job else "ended")))
            await asyncio.sleep(next(pauses))

    async def _after_ready(self) -> None:
        """The job started its after_frontend services itself."""

    def _anything_started(self) -> bool:
        return self.job is not None

    async def _roll_back_all(self) -> None:
        self._rolling_back = True
        if self.job is None:
            return
        if await self._cancel(self.job):
            self.started.clear()  # the job's cleanup removed them: nothing is left
            self.job = None

    def _say_left(self) -> None:
        super()._say_left()
        if self.job is not None and (self.keep or self._rolling_back):
            self._say(Step.LEFT, self.site.host, StepState.WARN,
                      said(SlurmSaid.LEFT, job=self.job))

    async def _interrupted(self) -> None:
        """Ctrl+C: the job is cancelled, pending or running, unless kept."""
        try:
            if self.job is not None and not self.keep and not self._rolling_back:
                await self._roll_back_all()
        finally:
            self._say_left()

    async def _cancel(self, job_id: str) -> bool:
        """scancel, then wait until Slurm lists the job no more (its cleanup ran)."""
        self._say(Step.ROLLBACK, None, StepState.STARTED, job_id)
        try:
            now = await self.site.job(job_id)
            if now is not None and not ended(now):
                await self.site.cancel(now)
            if await self.site.wait_ended([job_id], time.monotonic() + CANCEL_WAIT_SECONDS,
                                          lambda _job: None):
                self._say(Step.ROLLBACK, None, StepState.WARN, said(
                    SlurmSaid.CANCEL_SLOW, job=job_id, seconds=CANCEL_WAIT_SECONDS))
                return False
        except (SlurmError, NodeError) as exc:
            why = refused(exc) if isinstance(exc, SlurmError) else exc.said
            self._say(Step.ROLLBACK, self.site.host, StepState.FAILED, why)
            return False
        self._say(Step.ROLLBACK, None, StepState.OK, said(SlurmSaid.CANCELLED, job=job_id))
        return True
