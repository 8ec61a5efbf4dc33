"""``doctor`` on a Slurm cluster: the submit host reaches Slurm, and each of the cluster's
nodes is in the partition in a state that can take a job.

``sinfo`` is asked on the submit host, as a serve's ``sbatch`` will be; its lines are
read as untrusted text (a node name of the config's grammar, a state word). A node the
partition lacks is a failure (no job could ever hold it); a drained, down or failing
node a warning naming its state (it holds no new job until an admin returns it).
"""

from __future__ import annotations

from sparktui.engine.doctor_check import FAIL, PASS, WARN, Check
from sparktui.engine.remote.transport import NodeError
from sparktui.engine.slurm.site import SlurmError, SlurmSite
from sparktui.i18n import N_, N_plural
from sparktui.said import Code, said

TAKES_JOBS = ("idle", "allocated", "mixed", "completing", "reserved", "planned")


class SlurmDoctorSaid(Code):
    PARTITION = N_plural("partition {partition}: {n} node, asked on {host}",
                         "partition {partition}: {n} nodes, asked on {host}")
    NO_SLURM = N_("{host} could not ask Slurm: {said}")
    REACH_SLURM = N_("the submit host needs Slurm's clients and its slurm.conf (sinfo -p "
                     "{partition} there by hand)")
    NO_PARTITION = N_("{host}: Slurm has no partition {partition}")
    NODE_STATE = N_("in partition {partition}: {state}")
    NOT_IN_PARTITION = N_("not in partition {partition}: no job of this cluster can hold it")
    ADD_NODE = N_("add the node to the partition, or fix its name in config.toml (Slurm's "
                  "node name)")
    RETURN_NODE = N_("ask the site's admin to return it: scontrol update nodename={node} "
                     "state=resume")


def _takes_jobs(state: str) -> bool:
    """A state a job can get the node in: a working state with no flag, or powered off
    (``~``) or powering up (``#``), which Slurm wakes for the job."""
    base = state.rstrip("*~#!%$@^-")
    return base in TAKES_JOBS and state[len(base):] in ("", "~", "#")


async def slurm_checks(site: SlurmSite, nodes: list[str]) -> list[Check]:
    partition, host = site.slurm.partition, site.host
    try:
        states = await site.partition_nodes()
    except NodeError as exc:
        return [Check(host, "slurm", FAIL, exc.said, exc.hint or "")]
    except SlurmError as exc:
        return [Check(host, "slurm", FAIL, said(SlurmDoctorSaid.NO_SLURM, host=host,
                                                  said=exc.said),
                      said(SlurmDoctorSaid.REACH_SLURM, partition=partition))]
    if not states:
        return [Check(host, "slurm", FAIL, said(SlurmDoctorSaid.NO_PARTITION, host=host,
                                                  partition=partition),
                      said(SlurmDoctorSaid.REACH_SLURM, partition=partition))]
    checks = [Check(host, "slurm", PASS, said(SlurmDoctorSaid.PARTITION, partition=partition,
                                              n=len(states), host=host))]
    for node in nodes:
        state = states.get(node)
        if state is None:
            checks.append(Check(node, "slurm", FAIL, said(SlurmDoctorSaid.NOT_IN_PARTITION,
                                                          partition=partition),
                                said(SlurmDoctorSaid.ADD_NODE)))
        elif _takes_jobs(state):
            checks.append(Check(node, "slurm", PASS, said(SlurmDoctorSaid.NODE_STATE,
                                                          partition=partition, state=state)))
        else:
            checks.append(Check(node, "slurm", WARN, said(SlurmDoctorSaid.NODE_STATE,
                                                          partition=partition, state=state),
                                said(SlurmDoctorSaid.RETURN_NODE, node=node)))
    return checks
