"""Supervision on the real test bed: a group that fails is restarted whole, and an
operator's stop ends the supervisor instead (issue 14)."""

from __future__ import annotations

import json
import os
import signal

from conftest import toy_recipe
from supervise_support import (
    TOP,
    SupervisorProcess,
    all_new,
    docker_runs,
    group,
    running,
    supervision,
    until,
    wait_supervised,
)

from sparktui.cli import main


def test_a_killed_worker_restarts_the_whole_group_and_a_stop_ends_the_supervisor(site, capsys):
    s = site(2, top=TOP)
    s.recipe("toy", toy_recipe())
    with SupervisorProcess(s, "toy") as sup:
        wait_supervised(s, sup)
        before = running(s)
        assert sup.saw("the group is not running: serving it")
        s.hosts.node("node2").docker("kill", "sparktui-toy")
        after = until(lambda: all_new(s, before), 120, "every container of the group new",
                      explain=sup.output)
        assert set(after) == {"node1", "node2"}
        status = until(lambda: (x := supervision(s)).record and x.record.restarts
                       and x.record.restarts[-1].ok and x, 60, "the restart recorded")
        event = status.record.restarts[-1]
        assert event.failure.node == "node2" and event.failure.kind == "not_running"
        capsys.readouterr()
        assert main(s.cli("health")) == 0
        out = capsys.readouterr().out
        assert "toy supervised by" in out and "restarts 1 in the last 10m" in out
        assert "because node2: its container is exited (137)" in out
        assert main(s.cli("health", "--json")) == 0
        shown = json.loads(capsys.readouterr().out)["supervision"]
        assert shown["state"] == "supervised" and shown["mode"] == "foreground"
        assert shown["record"]["restarts"][-1]["failure"]["node"] == "node2"
        runs = docker_runs(s, "node1")
        # an operator stops the cluster from another process: no restart, a clean exit
        assert main(s.cli("stop", "--yes")) == 0
        assert sup.wait(60) == 0, sup.output()
        assert "stop of test by" in sup.output() and "nothing is restarted" in sup.output()
    assert group(s) == {} and docker_runs(s, "node1") == runs
    status = supervision(s)
    assert status.state == "disarmed" and status.lease is None
