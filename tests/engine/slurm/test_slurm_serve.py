"""serve, health and stop on a Slurm cluster, on the test bed's real Slurm (munged,
slurmctld, one slurmd per node: tests/hosts/slurm.py) with node1 as the submit host:
one job holds the nodes and starts each launch as a step on its node's own dockerd;
health shows the job; stop sends the job's shell TERM, and its cleanup steps remove
every container before Slurm lets the job go."""

from __future__ import annotations

import asyncio
import json

import pytest
from lookalike import Why
from polling import eventually, eventually_async
from site_support import Recorder, toy_recipe

from sparktui.cli import main
from sparktui.engine.slurm.serve import SlurmSaid
from sparktui.said import Said

pytestmark = pytest.mark.hosts

# A look-alike, not the real vLLM (tests/lookalike.py): 2-node groups; an engine that exits
# or never answers on purpose.
LOOKALIKE = (Why.MULTI_NODE, Why.FAULT)

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
    # its shell has exited (the cleanup ran): Slurm may still be winding it up
    assert bed.jobs().get(job, {}).get("state") in (None, "COMPLETING"), bed.jobs()
    assert not any("sparktui-toy" in node.containers() for node in s.hosts.nodes)


def _colleagues_job(bed) -> str:
    """Both nodes held by another user's job (root submits it as ``nobody``)."""
    got = bed.run("sbatch", "--parsable", "--uid=nobody", "--exclusive", "--nodes=2",
                  f"--partition={bed.partition}", "--job-name=training", "--output=/dev/null",
                  "--chdir=/tmp", "--wrap=sleep 3600")
    assert got.returncode == 0, got.stderr
    job = got.stdout.strip().split(";")[0]
    eventually(lambda: bed.jobs().get(job, {}).get("state") == "RUNNING",
               what="the colleague's job running", explain=bed.logs)
    return job


def _pending_reasons(rec: Recorder) -> list[Said]:
    """The serve's pending lines that name why (the nodes are another job's)."""
    return [e.detail for e in rec.events if isinstance(e.detail, Said)
            and e.detail.code in (SlurmSaid.PENDING, SlurmSaid.PENDING_AT)
            and e.detail.params["reason"] in ("Resources", "Priority")]


def test_a_pending_serve_says_why_ctrl_c_cancels_it_and_a_colleagues_job_is_never_touched(
        site, capsys):
    s = site(2, extra_toml=SLURM)
    bed = s.hosts.start_slurm(partition="spark")
    theirs = _colleagues_job(bed)
    s.recipe("toy", toy_recipe())
    rec = Recorder()

    async def serve_until_pending() -> None:
        engine = s.engine()
        try:
            task = asyncio.create_task(engine.serve(s.plan("toy"), rec))
            # Slurm's first word on a job just submitted may be "None": the reason comes
            # with its scheduler's next pass, and serve says each change
            await eventually_async(lambda: _pending_reasons(rec), what="the serve pending",
                                   explain=bed.logs)
            task.cancel()  # Ctrl+C
            with pytest.raises(asyncio.CancelledError):
                await task
        finally:
            await engine.close()

    asyncio.run(serve_until_pending())
    pending = _pending_reasons(rec)[0]
    ours = str(pending.params["job"])
    placed = [p for p in _pending_reasons(rec) if p.code is SlurmSaid.PENDING_AT]
    assert placed and (placed[-1].params["place"], placed[-1].params["waiting"]) == (1, 1)
    assert any(isinstance(e.detail, Said) and e.detail.code is SlurmSaid.CANCELLED
               and e.detail.params["job"] == ours for e in rec.events), rec.events
    assert set(bed.jobs()) == {theirs}  # ours cancelled, theirs runs on
    assert main(s.cli("health")) == 0
    out = capsys.readouterr().out
    assert f"slurm job {theirs} training: RUNNING on node1, node2" in out, out
    assert "by nobody; another user's: never touched" in out, out
    assert main(s.cli("stop", "--yes")) == 0, capsys.readouterr()
    assert bed.jobs()[theirs]["state"] == "RUNNING"


def test_a_failed_serve_cancels_its_job_and_a_kept_one_is_named_with_its_scancel(site, capsys):
    """The engine exits before it is ready: the job is cancelled and nothing is left. One
    that never answers, with --keep-on-failure: the job stays, named with the command
    that cancels it (a kept job whose head container ended has ended with it: the job
    lasts as long as its head's container)."""
    s = site(2, extra_toml=SLURM, top="ready_timeout_seconds = 8")
    bed = s.hosts.start_slurm(partition="spark")
    s.recipe("toy", toy_recipe(env='STANDIN_EXIT_AFTER = "0.5"\nSTANDIN_EXIT_CODE = "3"'))
    assert main(s.cli("serve", "toy")) != 0
    out = capsys.readouterr()
    assert "cancelled; its cleanup removed what it started" in out.out + out.err, out
    assert not [j for j, i in bed.jobs().items() if i["state"] != "COMPLETING"], bed.jobs()
    assert not any("sparktui-toy" in node.containers() for node in s.hosts.nodes)
    s.recipe("toy", toy_recipe(env='STANDIN_READY_AFTER = "3600"'))
    assert main(s.cli("serve", "toy", "--keep-on-failure")) != 0
    err = capsys.readouterr().err
    kept = [j for j, i in bed.jobs().items() if i["state"] == "RUNNING"]
    assert len(kept) == 1, bed.jobs()
    assert (f"Slurm job {kept[0]} submitted from node1 (cancel it there: scancel --batch "
            f"--signal=TERM {kept[0]})") in err, err
    assert main(s.cli("stop", "--yes")) == 0
    assert bed.jobs().get(kept[0], {}).get("state") in (None, "COMPLETING"), bed.jobs()


def test_a_slurm_that_does_not_answer_never_keeps_the_containers_up(site, capsys):
    """Slurm gone (its daemons stopped) while the group serves: stop still removes the
    containers over SSH, and fails naming Slurm; health says the jobs are unknown."""
    s = site(2, extra_toml=SLURM, top="ready_timeout_seconds = 120")
    s.hosts.start_slurm(partition="spark")
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0, capsys.readouterr()
    s.hosts.stop_slurm()
    capsys.readouterr()
    assert main(s.cli("health")) == 0
    assert "slurm partition spark: its jobs are unknown" in capsys.readouterr().out
    assert main(s.cli("stop", "--yes")) == 1
    out = capsys.readouterr()
    said = out.out + out.err
    assert "stop failed on node1 at slurm job" in said, out
    assert "squeue refused: slurm_load_jobs error: Unable to contact slurm controller" in said
    assert not any("sparktui-toy" in node.containers() for node in s.hosts.nodes)


def test_a_job_that_fails_before_its_containers_says_what_it_wrote(site, capsys):
    """A before_serve hook fails inside the job (its script stops there): the serve's
    failure names the node still without a container and ends with the last lines the
    job wrote (its --output file), where the hook's own words are."""
    s = site(2, extra_toml=SLURM, top="ready_timeout_seconds = 120")
    bed = s.hosts.start_slurm(partition="spark")
    s.recipe("toy", toy_recipe(extra='before_serve = ["echo boom-from-the-hook >&2; exit 3"]'))
    assert main(s.cli("serve", "toy")) == 1
    err = capsys.readouterr().err
    assert "ended before node2 had its container" in err, err
    assert "its output sparktui-toy-" in err and "boom-from-the-hook" in err, err
    assert "No such container" not in err  # what the cleanup said is not the cause
    assert not [j for j, i in bed.jobs().items() if i["state"] in ("PENDING", "RUNNING")]
    assert not any("sparktui-toy" in node.containers() for node in s.hosts.nodes)
