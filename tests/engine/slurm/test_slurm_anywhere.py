"""serve on any N nodes of a Slurm cluster (``allocate = "any"``), on the test bed's real
Slurm: the job holds whichever nodes Slurm gives, the plan is resolved on them (head,
ranks, rendezvous), the preflight checks them, each launch is a step of that job on its
node's own dockerd, and stop cancels it, its cleanup removing what it started."""

from __future__ import annotations

import json

import pytest
from bench_support import bench_setup, kept_runs
from lookalike import Why
from polling import eventually
from site_support import toy_recipe

from sparktui.cli import main

pytestmark = pytest.mark.hosts

# A look-alike, not the real vLLM (tests/lookalike.py): 2-node groups on a 3-node bed;
# bench figures the test sets.
LOOKALIKE = (Why.MULTI_NODE, Why.FIGURES)

ANY = '[clusters.slurm]\npartition = "spark"\nsubmit_host = "node1"\nallocate = "any"\n'


def _colleagues_job_on(bed, node: str) -> str:
    """``node`` held by another user's job (root submits it as ``nobody``)."""
    got = bed.run("sbatch", "--parsable", "--uid=nobody", "--exclusive", "--nodes=1",
                  f"--nodelist={node}", f"--partition={bed.partition}", "--job-name=training",
                  "--output=/dev/null", "--chdir=/tmp", "--wrap=sleep 3600")
    assert got.returncode == 0, got.stderr
    job = got.stdout.strip().split(";")[0]
    eventually(lambda: bed.jobs().get(job, {}).get("state") == "RUNNING",
               what="the colleague's job running", explain=bed.logs)
    return job


def _labels(node) -> dict[str, str]:
    labels = node.containers()["sparktui-toy"]["Config"]["Labels"]
    return {k.removeprefix("sparktui."): v for k, v in labels.items()}


def test_the_plan_is_resolved_on_the_nodes_slurm_gave(site, capsys):
    """node1 (rank 0) is a colleague's: the job gets node2 and node3, node2 is the head
    (rank 0 of the plan) and the rendezvous is its address; nothing lands on node1."""
    s = site(3, extra_toml=ANY, top="ready_timeout_seconds = 120")
    bed = s.hosts.start_slurm(partition="spark")
    theirs = _colleagues_job_on(bed, "node1")
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0, capsys.readouterr()
    out = capsys.readouterr().out
    ours = [j for j, info in bed.jobs().items() if j != theirs and info["state"] == "RUNNING"]
    assert len(ours) == 1, (bed.jobs(), out)
    assert (f"job {ours[0]} holds node2, node3: the plan is resolved there, head node2"
            in out), out
    node1, node2, node3 = s.hosts.nodes
    assert "sparktui-toy" not in node1.containers()
    assert (_labels(node2)["rank"], _labels(node2)["role"]) == ("0", "head")
    assert _labels(node3)["rank"] == "1"
    launch = " ".join(s.hosts.recorded_docker(node3)[-1])
    assert node2.addr in launch and node1.addr not in launch, launch  # the rendezvous
    assert main(s.cli("health", "--json")) == 0
    shown = {j["id"]: j for j in json.loads(capsys.readouterr().out)["slurm"]["jobs"]}
    assert shown[ours[0]]["nodes"] == ["node2", "node3"] and shown[ours[0]]["ours"]
    assert main(s.cli("logs", "--tail", "3")) == 0  # found where the job put them
    tagged = {line.split(" | ")[0] for line in capsys.readouterr().out.splitlines()
              if " | " in line}
    assert tagged == {"node2", "node3"}, tagged
    assert main(s.cli("stop", "--yes")) == 0, capsys.readouterr()
    assert f"job {ours[0]} cancelled" in capsys.readouterr().out
    assert not any("sparktui-toy" in node.containers() for node in s.hosts.nodes)
    assert bed.jobs()[theirs]["state"] == "RUNNING"  # a colleague's job is never touched


def test_a_preflight_failure_on_a_node_the_job_got_cancels_the_job(site, capsys):
    """node3 lacks the image: the preflight, run on the nodes the job holds (node2 and
    node3, not the first two of the table), refuses naming node3, the job is cancelled,
    and nothing is left on any node."""
    s = site(3, extra_toml=ANY, top="ready_timeout_seconds = 120")
    bed = s.hosts.start_slurm(partition="spark")
    theirs = _colleagues_job_on(bed, "node1")
    s.hosts.node("node3").remove_image("vllm:test")
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) != 0
    out = capsys.readouterr()
    said = out.out + out.err
    assert "node3" in out.err and "vllm:test" in out.err, out
    assert "cancelled; its cleanup removed what it started" in said, said
    assert set(j for j, i in bed.jobs().items() if i["state"] != "COMPLETING") == {theirs}
    assert not any("sparktui-toy" in node.containers() for node in s.hosts.nodes)


def test_the_job_ends_with_its_heads_container_and_its_cleanup_empties_every_node(
        site, capsys):
    """The head's container killed: the job (which waits on it, on whichever node it got)
    ends, and its cleanup removes the worker's container on the other node it held."""
    s = site(3, extra_toml=ANY, top="ready_timeout_seconds = 120")
    bed = s.hosts.start_slurm(partition="spark")
    _colleagues_job_on(bed, "node1")
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0, capsys.readouterr()
    ours = [j for j, i in bed.jobs().items() if i["name"] == "sparktui-toy"]
    assert len(ours) == 1 and "sparktui-toy" in s.hosts.node("node3").containers()
    s.hosts.node("node2").docker("kill", "sparktui-toy")
    eventually(lambda: bed.jobs().get(ours[0], {}).get("state") in (None, "COMPLETING",
                                                                     "COMPLETED"),
               60, "the job ended with its head", explain=bed.logs)
    eventually(lambda: "sparktui-toy" not in s.hosts.node("node3").containers(), 60,
               "the worker removed by the job's cleanup", explain=bed.logs)


def test_bench_loads_the_head_the_job_got(site, tmp_path, monkeypatch, capsys):
    """Bench finds the serving head where the job put it (node2, not the table's first)
    and loads it there; the run names the job's nodes."""
    tokenizer = bench_setup(tmp_path, monkeypatch)
    s = site(3, extra_toml=ANY, top="ready_timeout_seconds = 120")
    bed = s.hosts.start_slurm(partition="spark")
    _colleagues_job_on(bed, "node1")
    s.hosts.node("node2").set_engine(ttft=0.05, tpot=0.01)
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0, capsys.readouterr()
    capsys.readouterr()
    assert main(s.cli("bench", "toy", "--tokenizer", str(tokenizer), "--input-tokens", "16",
                      "--output-tokens", "8", "--concurrency", "1", "--requests", "4",
                      "--json")) == 0, capsys.readouterr()
    [run] = kept_runs(tmp_path)
    assert (run["head"], run["nodes"]) == ("node2", ["node2", "node3"]), run
    assert run["levels"][0]["requests"] == 4 and run["levels"][0]["errors"] == 0
