"""stop on a Slurm cluster: this operator's jobs of the cluster are cancelled first.

A job is this cluster's serve when it is named ``sparktui-RECIPE`` (of ``recipe``, if
given) and submitted by the submit host's user; every other job on the partition, a
colleague's above all, is never touched. Each cancelled job is waited for until Slurm
lists it no more (its cleanup removed its containers on every node); the stop over SSH
that follows removes whatever a cleanup left and restores the nodes.
"""

from __future__ import annotations

import time

from sparktui.engine.progress import ProgressLog
from sparktui.engine.remote.transport import NodeError
from sparktui.engine.slurm.jobs import Job, job_name
from sparktui.engine.slurm.serve import CANCEL_WAIT_SECONDS, SlurmSaid, refused
from sparktui.engine.slurm.site import SlurmError, SlurmSite
from sparktui.said import said
from sparktui.steps import Step, StepState


def ours(jobs: list[Job], user: str, recipes: list[str] | None) -> list[Job]:
    """The jobs a stop cancels: ``user``'s, named as a serve of one of ``recipes`` (any
    recipe's when None)."""
    def serve_of(job: Job) -> bool:
        if recipes is None:
            return job.name.startswith(job_name(""))
        return job.name in {job_name(r) for r in recipes}
    return [j for j in jobs if j.user == user and serve_of(j)]


async def cancel_jobs(site: SlurmSite, recipe: str | None, log: ProgressLog) -> bool:
    """Cancel this operator's serve jobs and wait for each to end; False when one could
    not be cancelled or looked at (named): the stop over SSH still runs, and fails."""
    try:
        user, listed = await site.user_and_jobs()
        jobs = ours(listed, user, [recipe] if recipe else None)
        for job in jobs:
            log(Step.SLURM, site.host, StepState.STARTED, job.id)
            await site.cancel(job)
        left = await site.wait_ended(
            [j.id for j in jobs], time.monotonic() + CANCEL_WAIT_SECONDS,
            lambda gone: log(Step.SLURM, site.host, StepState.OK,
                             said(SlurmSaid.CANCELLED, job=gone)))
        for slow in left:
            log(Step.SLURM, site.host, StepState.FAILED, said(
                SlurmSaid.CANCEL_SLOW, job=slow, seconds=CANCEL_WAIT_SECONDS))
        if left:
            return False
    except SlurmError as exc:
        log(Step.SLURM, site.host, StepState.FAILED, refused(exc))
        return False
    except NodeError as exc:
        log(Step.SLURM, exc.node, StepState.FAILED, exc.said)
        return False
    return True
