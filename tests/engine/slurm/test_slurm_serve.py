"""serve, health and stop on a Slurm cluster, on the test bed's real Slurm (munged,
slurmctld, one slurmd per node: tests/hosts/slurm.py) with node1 as the submit host:
one job holds the nodes and starts each launch as a step on its node's own dockerd;
health shows the job; stop sends the job's shell TERM, and its cleanup steps remove
every container before Slurm lets the job go."""

from __future__ import annotations

import json

import pytest
from lookalike import Why
from site_support import toy_recipe

from sparktui.cli import main

pytestmark = pytest.mark.hosts

# A look-alike, not the real vLLM (tests/lookalike.py): 2-node groups.
LOOKALIKE = (Why.MULTI_NODE,)

SLURM = '[clusters.slurm]\npartition = "spark"\nsubmit_host = "node1"\n'


def test_serve_is_one_job_health_shows_it_and_stop_cancels_it(site, capsys):
    s = site(2, extra_toml=SLURM, top="ready_timeout_seconds = 120")
    bed = s.hosts.start_slurm(partition="spark")
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0, capsys.readouterr()
    out = capsys.readouterr().out
    jobs = {j: info for j, info in bed.jobs().items() if info["state"] == "RUNNING"}
    assert len(jobs) == 1, (jobs, out)
    job = next(iter(jobs))
    assert f"job {job} submitted from node1 to partition spark" in out, out
    for node in s.hosts.nodes:  # each launch on its own node's dockerd, by the job's step
        assert node.containers()["sparktui-toy"]["State"]["Running"], node.name
    assert main(s.cli("health", "--json")) == 0
    shown = json.loads(capsys.readouterr().out)["slurm"]
    assert shown["error"] is None and shown["partition"] == "spark"
    assert [(j["id"], j["state"], j["name"], j["nodes"], j["ours"]) for j in shown["jobs"]] \
        == [(job, "RUNNING", "sparktui-toy", ["node1", "node2"], True)]
    assert main(s.cli("stop", "--yes")) == 0, capsys.readouterr()
    out = capsys.readouterr().out
    assert f"job {job} cancelled" in out, out
    assert job not in bed.jobs()
    assert not any("sparktui-toy" in node.containers() for node in s.hosts.nodes)
