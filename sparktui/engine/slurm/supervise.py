"""Supervision on a Slurm cluster: a group its job's time limit ended is said so.

The job's shell gets TERM ahead of the limit (``plan -f sbatch``: ``--signal``), its
cleanup removes the containers, and the supervisor then sees them gone: the same
failure as a crash, unless Slurm says the job ran out of time. The restart that follows
is a new job (stop cancels what is left of the old one, serve submits), within the
same bounds as any restart.
"""

from __future__ import annotations

from sparktui.engine.remote.transport import NodeError
from sparktui.engine.slurm.jobs import at_time_limit, job_name
from sparktui.engine.slurm.serve import SlurmSaid, refused
from sparktui.engine.slurm.site import SlurmError, SlurmSite
from sparktui.engine.supervise.record import Failure
from sparktui.errors import SparkError
from sparktui.plan.anywhere import Replan
from sparktui.plan.model import LaunchPlan
from sparktui.plan.render.sbatch import CLEANUP_SECONDS
from sparktui.said import Text, said

TIME_LIMIT = "time_limit"
WINDOW = CLEANUP_SECONDS + 60
"""Slurm sends the early signal up to a minute before it was asked to."""


async def time_limit_failure(site: SlurmSite, recipe: str, head: str) -> Failure | None:
    """The failure to report instead of the containers' when the recipe's job reached its
    time limit; None when it did not, or Slurm could not say (the failures found stand)."""
    try:
        user = await site.user()
        job = at_time_limit(await site.recipe_jobs(recipe), user, recipe, WINDOW)
    except (SlurmError, NodeError):
        return None
    return None if job is None else Failure(TIME_LIMIT, head, job.id)


async def running_plan(site: SlurmSite, plan: LaunchPlan, replan: Replan
                       ) -> LaunchPlan | Text | None:
    """Where the recipe's group runs on a cluster whose jobs hold any N nodes: the plan
    resolved on the nodes of the operator's newest running job of it; None when none
    runs (the supervisor serves it); what went wrong when Slurm could not say (a
    supervisor that guessed would watch, and restart, the wrong nodes)."""
    try:
        user = await site.user()
        jobs = [j for j in await site.recipe_jobs(plan.recipe) if j.running
                and j.user == user and j.name == job_name(plan.recipe)]
    except SlurmError as exc:
        return refused(exc)
    except NodeError as exc:
        return exc.said
    if not jobs:
        return None
    job = max(jobs, key=lambda j: int(j.id.split("_")[0]))
    try:
        return replan(list(job.nodes))
    except SparkError as exc:
        return said(SlurmSaid.REPLAN, job=job.id, problem=exc.problems[0].code)
