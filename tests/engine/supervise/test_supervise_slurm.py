"""Supervision on a Slurm cluster, on the test bed's real Slurm: a group that fails is
resubmitted whole (its job cancelled, a new job submitted, within the same bounds), and
an operator's stop ends the supervisor and cancels the job. The time-limit path (the
failure said as the job's time limit, not a crash) is tested on Slurm's own answers in
test_slurm_answers.py: a job that really runs out of time takes a minute or more here."""

from __future__ import annotations

import pytest
from engine.slurm.test_slurm_serve import SLURM
from lookalike import Why
from polling import eventually
from site_support import toy_recipe
from supervise_support import (
    LOOK_OVER_SSH,
    TOP,
    SupervisorProcess,
    all_new,
    running,
    sparks,
    supervision,
    wait_supervised,
)

from sparktui.cli import main

pytestmark = pytest.mark.hosts

# A look-alike, not the real vLLM (tests/lookalike.py): an engine killed on purpose; 2-node
# groups.
LOOKALIKE = (Why.FAULT, Why.MULTI_NODE)


def _serving_jobs(bed) -> set[str]:
    return {j for j, info in bed.jobs().items()
            if info["state"] == "RUNNING" and info["name"] == "sparktui-toy"}


def test_a_failed_group_is_resubmitted_as_a_new_job_and_a_stop_cancels_it(site, capsys):
    s = sparks(site(2, extra_toml=SLURM, top=TOP + "\nready_timeout_seconds = 120"))
    bed = s.hosts.start_slurm(partition="spark")
    s.recipe("toy", toy_recipe())
    with SupervisorProcess(s, "toy") as sup:
        wait_supervised(s, sup)
        first = _serving_jobs(bed)
        assert len(first) == 1, bed.jobs()
        before = running(s)
        s.hosts.node("node2").docker("kill", "sparktui-toy")
        eventually(lambda: all_new(s, before), 180, "every container of the group new",
                   explain=sup.output, every=LOOK_OVER_SSH)
        second = eventually(lambda: (now := _serving_jobs(bed)) and now != first and now,
                            60, "a new job serving", explain=bed.logs)
        assert not (first & second) and len(second) == 1, bed.jobs()
        status = eventually(lambda: (x := supervision(s)).record and x.record.restarts
                            and x.record.restarts[-1].ok and x, 60, "the restart recorded",
                            every=LOOK_OVER_SSH)
        assert status.record.restarts[-1].failure.kind == "not_running"  # not a time limit
        capsys.readouterr()
        assert main(s.cli("stop", "--yes")) == 0
        assert sup.wait(60) == 0, sup.output()
        assert f"job {next(iter(second))} cancelled" in capsys.readouterr().out
    assert _serving_jobs(bed) == set()
    assert not any("sparktui-toy" in node.containers() for node in s.hosts.nodes)


def test_a_group_its_jobs_time_limit_ended_is_said_so_not_as_a_crash(site, capsys):
    """A one-minute limit: Slurm sends the job's shell TERM ahead of it (the script's
    ``--signal=B:TERM@120``, at once for so short a limit), its cleanup removes the
    containers, and the supervisor's restart names the time limit, not a crash. Slurm's
    own timer paces this test (its checks come every 30 s or so): idle, not busy."""
    s = sparks(site(2, extra_toml=SLURM + 'time_limit = "1"\n',
                    top=TOP + "\nready_timeout_seconds = 120"))
    bed = s.hosts.start_slurm(partition="spark")
    s.recipe("toy", toy_recipe())
    with SupervisorProcess(s, "toy") as sup:
        wait_supervised(s, sup)
        status = eventually(lambda: (x := supervision(s)).record and x.record.restarts and x,
                            240, "a restart after the time limit", explain=sup.output,
                            every=LOOK_OVER_SSH)
        failure = status.record.restarts[0].failure
        assert failure.kind == "time_limit", (failure, sup.output())
        assert "its Slurm job" in sup.output() and "reached its time limit" in sup.output()
        assert main(s.cli("stop", "--yes")) == 0
        assert sup.wait(60) == 0, sup.output()
    assert _serving_jobs(bed) == set()
