"""Supervision on a Slurm cluster whose jobs hold any N of its nodes (``allocate =
"any"``), on the test bed's real Slurm: the supervisor watches the nodes the running
job holds (not the first of the table), and its restart's new job resolves the plan on
the nodes that one got."""

from __future__ import annotations

import pytest
from engine.slurm.test_slurm_anywhere import ANY, _colleagues_job_on
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
from sparktui.engine.supervise.codes import reason_said

pytestmark = pytest.mark.hosts

# A look-alike, not the real vLLM (tests/lookalike.py): an engine killed on purpose; 2-node
# groups.
LOOKALIKE = (Why.FAULT, Why.MULTI_NODE)
HELD = ("node2", "node3")


def _jobs(bed) -> set[str]:
    return {j for j, info in bed.jobs().items()
            if info["state"] == "RUNNING" and info["name"] == "sparktui-toy"}


def test_a_supervisor_adopts_the_jobs_nodes_and_resubmits_onto_the_free_ones(site, capsys):
    s = sparks(site(3, extra_toml=ANY, top=TOP + "\nready_timeout_seconds = 120"))
    bed = s.hosts.start_slurm(partition="spark")
    _colleagues_job_on(bed, "node1")
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0, capsys.readouterr()
    first = _jobs(bed)
    with SupervisorProcess(s, "toy") as sup:
        wait_supervised(s, sup, nodes=HELD)
        assert _jobs(bed) == first, bed.jobs()  # adopted where it runs: no new job
        assert "sparktui-toy" not in s.hosts.node("node1").containers()
        before = running(s, HELD)
        s.hosts.node("node3").docker("kill", "sparktui-toy")
        eventually(lambda: all_new(s, before), 180, "every container of the group new",
                   explain=sup.output, every=LOOK_OVER_SSH)
        second = eventually(lambda: (now := _jobs(bed)) and now != first and now,
                            60, "a new job serving", explain=bed.logs)
        assert len(second) == 1, bed.jobs()
        assert "sparktui-toy" not in s.hosts.node("node1").containers()
        capsys.readouterr()
        assert main(s.cli("stop", "--yes")) == 0
        assert sup.wait(60) == 0, sup.output()
    assert _jobs(bed) == set()
    assert not any("sparktui-toy" in node.containers() for node in s.hosts.nodes)


def test_a_supervisor_that_cannot_ask_slurm_where_the_group_runs_does_not_guess(site, capsys):
    """Slurm gone while the group serves: the supervisor cannot know which nodes its job
    holds, so it ends at once naming Slurm's words, and the group runs on untouched (a
    guess would watch, and restart, the wrong nodes)."""
    s = sparks(site(3, extra_toml=ANY, top=TOP + "\nready_timeout_seconds = 120"))
    s.hosts.start_slurm(partition="spark")
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0, capsys.readouterr()
    before = {n.name: n.containers().get("sparktui-toy", {}).get("Id")
              for n in s.hosts.nodes}
    assert sum(1 for cid in before.values() if cid) == 2, before
    s.hosts.stop_slurm()
    capsys.readouterr()
    assert main(s.cli("supervise", "toy")) == 1
    out = capsys.readouterr()
    assert "Unable to contact slurm controller" in out.out + out.err, out
    after = {n.name: n.containers().get("sparktui-toy", {}).get("Id") for n in s.hosts.nodes}
    assert after == before
    # its record, written "watching" at arming, ends saying why (not a stale "watching")
    status = supervision(s)
    assert status.state == "ended" and status.lease is None, status
    assert status.record is not None and status.record.reason is not None
    assert status.record.reason.code == "where_unknown"
    assert "Unable to contact slurm controller" in str(reason_said(status.record.reason))
