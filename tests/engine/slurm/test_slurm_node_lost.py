"""A node lost under a serve's job, on the test bed's real Slurm (``scontrol update
state=down``: Slurm kills the job as for a node that stopped answering). The job is not
requeued (it would launch again later over what its first run left), and though Slurm
takes no new step from a job it is killing, every node whose slurmd still runs removes
what the job started there: its guard step, signalled by that slurmd (node2 here, which
is neither the batch host nor the lost node, shows it), and the batch host's cleanup."""

from __future__ import annotations

import pytest
from engine.slurm.test_slurm_anywhere import ANY
from engine.slurm.test_slurm_serve import SLURM
from lookalike import Why
from polling import eventually
from site_support import toy_recipe

from sparktui.cli import main

pytestmark = pytest.mark.hosts

# A look-alike, not the real vLLM (tests/lookalike.py): 3-node groups.
LOOKALIKE = (Why.MULTI_NODE,)


@pytest.mark.parametrize("allocate", ["plan", "any"])
def test_a_lost_node_ends_the_job_for_good_and_every_node_cleans_up(site, capsys,
                                                                    allocate: str):
    s = site(3, extra_toml=SLURM if allocate == "plan" else ANY,
             top="ready_timeout_seconds = 120")
    bed = s.hosts.start_slurm(partition="spark")
    s.recipe("toy", toy_recipe(nodes=3))
    assert main(s.cli("serve", "toy")) == 0, capsys.readouterr()
    [job] = [j for j, i in bed.jobs().items() if i["state"] == "RUNNING"]
    assert all("sparktui-toy" in node.containers() for node in s.hosts.nodes)
    lost = bed.run("scontrol", "update", "nodename=node3", "state=down", "reason=lost")
    assert lost.returncode == 0, lost.stderr
    eventually(lambda: not any("sparktui-toy" in node.containers() for node in s.hosts.nodes),
               60, "every node's container removed", explain=bed.logs)
    eventually(lambda: bed.jobs().get(job, {}).get("state") in (None, "COMPLETING",
                                                                "NODE_FAIL"),
               60, "the job ended", explain=bed.logs)
    assert not [j for j, i in bed.jobs().items() if i["state"] in ("PENDING", "RUNNING")]
