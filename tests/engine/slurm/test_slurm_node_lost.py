"""A node lost under a serve's job, on the test bed's real Slurm (``scontrol update
state=down``: Slurm kills the job as for a node that stopped answering). The job is not
requeued (it would launch again later over what its first run left), its batch host
removes its own containers though Slurm takes no new step from a job it is killing, and
what the lost node still runs (had it only lost its network) a stop over SSH removes."""

from __future__ import annotations

import pytest
from engine.slurm.test_slurm_anywhere import ANY
from engine.slurm.test_slurm_serve import SLURM
from lookalike import Why
from polling import eventually
from site_support import toy_recipe

from sparktui.cli import main

pytestmark = pytest.mark.hosts

# A look-alike, not the real vLLM (tests/lookalike.py): 2-node groups.
LOOKALIKE = (Why.MULTI_NODE,)


@pytest.mark.parametrize("allocate", ["plan", "any"])
def test_a_lost_node_ends_the_job_for_good_and_its_batch_host_cleans_up(site, capsys,
                                                                         allocate: str):
    s = site(2, extra_toml=SLURM if allocate == "plan" else ANY,
             top="ready_timeout_seconds = 120")
    bed = s.hosts.start_slurm(partition="spark")
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0, capsys.readouterr()
    [job] = [j for j, i in bed.jobs().items() if i["state"] == "RUNNING"]
    node1, node2 = s.hosts.nodes  # node1: the batch host (the first node of the job)
    lost = bed.run("scontrol", "update", "nodename=node2", "state=down", "reason=lost")
    assert lost.returncode == 0, lost.stderr
    eventually(lambda: "sparktui-toy" not in node1.containers(), 60,
               "the batch host's container removed by the job's cleanup", explain=bed.logs)
    eventually(lambda: bed.jobs().get(job, {}).get("state") in (None, "COMPLETING",
                                                                "NODE_FAIL"),
               60, "the job ended", explain=bed.logs)
    assert not [j for j, i in bed.jobs().items() if i["state"] in ("PENDING", "RUNNING")]
    assert "sparktui-toy" in node2.containers()  # Slurm could not reach it: it is not ours
    capsys.readouterr()
    assert main(s.cli("stop", "--yes")) == 0, capsys.readouterr()
    assert not any("sparktui-toy" in node.containers() for node in s.hosts.nodes)
