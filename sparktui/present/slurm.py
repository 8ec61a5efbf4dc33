"""A Slurm cluster's jobs in words, for ``health`` and the stop confirmation.

Every field of a job is Slurm's (another operator may have named the job anything), so
each goes through ``visible`` before it reaches a terminal. A job of another user is
marked as such: shown, never touched.
"""

from __future__ import annotations

from sparktui.engine.api import SlurmStatus, job_name
from sparktui.i18n import _
from sparktui.visible import visible


def slurm_lines(status: SlurmStatus) -> list[str]:
    where = visible(status.partition)
    if status.error is not None:
        return [_("slurm partition {partition}: its jobs are unknown: {error}").format(
            partition=where, error=visible(status.error))]
    if not status.jobs:
        return [_("slurm partition {partition}: no job on these nodes").format(partition=where)]
    lines = []
    for job in status.jobs:
        values = {"job": visible(job.id), "name": visible(job.name),
                  "left": visible(job.time_left) or "-", "user": visible(job.user)}
        if job.pending:  # no node yet; its time left is its whole limit
            line = _("slurm job {job} {name}: pending ({reason}), time limit {left}, by "
                     "{user}").format(reason=visible(job.reason), **values)
        else:
            line = _("slurm job {job} {name}: {state} on {nodes}, time left {left}, by "
                     "{user}").format(state=visible(job.state),
                                      nodes=", ".join(map(visible, job.nodes)) or "-", **values)
        if job.user != status.user:
            line += "; " + _("another user's: never touched")
        lines.append(line)
    return lines


def waiting_serves(status: SlurmStatus, cluster: str, recipe: str | None = None) -> list[str]:
    """A sentence for each of the operator's serve jobs that have not ended, for a
    confirmation whose check saw nothing run: "nothing runs" would hide the job. The job's
    id, state and name are Slurm's, so each goes through ``visible``."""
    prefix = job_name("")
    return [_("Slurm job {job} of {recipe} is {state}: nothing of it runs on the nodes of "
              "{cluster} yet.").format(job=visible(j.id), state=visible(j.state),
                                       recipe=visible(j.name.removeprefix(prefix)),
                                       cluster=cluster)
            for j in status.own_serves(recipe)]
