"""Supervision on the real test bed: a group that fails is restarted whole, and an
operator's stop ends the supervisor instead (issue 14)."""

from __future__ import annotations

import json
import os
import signal

from lookalike import Why
from polling import eventually
from site_support import toy_recipe
from supervise_support import (
    LOOK_OVER_SSH,
    SUPERVISOR_IMAGE,
    TOP,
    SupervisorProcess,
    all_new,
    build_supervisor_image,
    docker_runs,
    group,
    running,
    sparks,
    supervision,
    wait_supervised,
)

from sparktui.cli import main

# A look-alike, not the real vLLM (tests/lookalike.py): an engine that exits after ready, set
# figures, restarts; 2-node groups.
LOOKALIKE = (Why.FAULT, Why.FIGURES, Why.SPEED, Why.MULTI_NODE)


def test_a_killed_worker_restarts_the_whole_group_and_a_stop_ends_the_supervisor(site, capsys):
    s = sparks(site(2, top=TOP))
    s.recipe("toy", toy_recipe())
    with SupervisorProcess(s, "toy") as sup:
        wait_supervised(s, sup)
        before = running(s)
        assert sup.saw("the group is not running: serving it")
        s.hosts.node("node2").docker("kill", "sparktui-toy")
        after = eventually(lambda: all_new(s, before), 120, "every container of the group new",
                           explain=sup.output, every=LOOK_OVER_SSH)
        assert set(after) == {"node1", "node2"}
        status = eventually(lambda: (x := supervision(s)).record and x.record.restarts
                            and x.record.restarts[-1].ok and x, 60, "the restart recorded",
                            every=LOOK_OVER_SSH)
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


def _freeze(s, node: str, container: str = "sparktui-toy") -> list[int]:
    """SIGSTOP every process of the container: it keeps its port and answers nothing."""
    top = s.hosts.node(node).docker("top", container, "-eo", "pid")
    pids = [int(x) for x in top.stdout.split()[1:] if x.isdigit()]
    assert pids, top.stderr
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    return pids


def test_a_hung_head_is_restarted_and_a_second_supervisor_refuses(site, capsys):
    s = sparks(site(2, top=TOP))
    s.recipe("toy", toy_recipe())
    with SupervisorProcess(s, "toy") as sup:
        wait_supervised(s, sup)
        holder = supervision(s).lease
        # a second supervisor of the same group, from another process: refused, exit 3
        capsys.readouterr()
        assert main(s.cli("supervise", "toy")) == 3
        err = capsys.readouterr().err
        assert "supervised already" in err and holder.holder in err
        before = running(s)
        _freeze(s, "node1")  # the head engine stops answering, its container still "Up"
        eventually(lambda: all_new(s, before), 120, "every container of the group new",
                   explain=sup.output, every=LOOK_OVER_SSH)
        event = eventually(lambda: (r := supervision(s).record) and r.restarts
                           and r.restarts[-1].ok and r.restarts[-1], 60, "the restart recorded",
                           every=LOOK_OVER_SSH)
        assert event.failure.node == "node1" and event.failure.kind == "health"
        assert "/health does not answer (timeout)" in sup.output()
        # Ctrl+C ends the supervisor and leaves the group running
        sup.signal(signal.SIGINT)
        assert sup.wait(60) == 0, sup.output()
        assert "the group keeps running" in sup.output()
    assert running(s) and supervision(s).state == "ended"
    assert supervision(s).lease is None


def test_an_engine_that_crashes_every_time_is_given_up_after_the_limit(site, capsys):
    s = sparks(site(2, top=TOP))
    # healthy, then "CUDA out of memory" a second after the serve saw it ready, every
    # time (after its ready answer, not after a time: however long a loaded machine
    # takes to serve it, it has been seen healthy first)
    s.recipe("toy", toy_recipe(env='STANDIN_EXIT_AFTER_READY = "1"'))
    with SupervisorProcess(s, "toy") as sup:
        assert sup.wait(300) == 1, sup.output()
    out = sup.output()
    assert out.count("restarting the whole group") == 2  # max_restarts, then no more
    assert "gave up on toy (test): 2 restarts in the last 10m" in out
    assert "CUDA out of memory" in out or "NCCL error" in out  # the failed node's lines
    assert docker_runs(s, "node1") == 3 and docker_runs(s, "node2") == 3
    status = supervision(s)
    assert status.state == "gave_up" and status.lease is None
    assert len(status.record.restarts) == 2 and status.record.last_lines
    assert set(group(s)) == {"node1", "node2"}  # left as it is, for the operator
    capsys.readouterr()
    main(s.cli("health"))
    out = capsys.readouterr().out
    assert "supervision of toy gave up at" in out and "2 restarts in the last 10m" in out
    assert "last lines of" in out
    # an end of supervision makes the give-up history, and says what is true of the group
    # (issue 29, item 12): it does not run, it does not "keep running"
    eventually(lambda: all(state != "running" for _, state in group(s).values()), 60,
               "the crashed group's containers exited", every=LOOK_OVER_SSH)
    assert main(s.cli("supervise", "--end")) == 0
    out = capsys.readouterr().out
    assert "the give-up of toy's supervision is history now" in out
    assert "toy does not run on test (2 containers left, none running)" in out, out
    assert "keeps running" not in out
    status = supervision(s)
    assert status.state == "ended" and status.record.cleared.values["action"] == "end"
    main(s.cli("health"))
    assert "cleared by end of supervision on test by" in capsys.readouterr().out


def test_a_group_that_never_becomes_healthy_is_not_restarted(site):
    s = sparks(site(2, top=TOP))
    s.recipe("toy", toy_recipe(env='STANDIN_READY_AFTER = "60"\nSTANDIN_EXIT_AFTER = "1"'))
    with SupervisorProcess(s, "toy") as sup:
        assert sup.wait(120) == 1, sup.output()
    out = sup.output()
    assert "restarting" not in out and docker_runs(s, "node1") == 1
    assert "gave up on toy (test): serve failed on" in out
    record = supervision(s).record
    assert record.reason.code == "serve_failed" and record.last_lines
    # the failed node's last lines (which node dies first is the engines' race)
    assert "CUDA out of memory" in out or "NCCL error" in out
    assert set(group(s)) == {"node1", "node2"}  # kept for a post-mortem


def test_a_dead_supervisors_lease_expires_and_end_leaves_the_group_running(site, capsys):
    s = sparks(site(2, top=TOP))
    s.recipe("toy", toy_recipe())
    with SupervisorProcess(s, "toy") as first:
        wait_supervised(s, first)
        dead = supervision(s).lease
        first.kill()  # no cleanup at all: the lease stays until its heartbeat is too old
    assert supervision(s).lease.token == dead.token
    eventually(lambda: supervision(s).state == "lost", 60, "the lease without heartbeat",
               every=LOOK_OVER_SSH)
    capsys.readouterr()
    main(s.cli("health"))
    assert f"supervisor {dead.holder} lost: no heartbeat for" in capsys.readouterr().out
    before = running(s)
    with SupervisorProcess(s, "toy") as second:  # takes over and adopts the running group
        status = wait_supervised(s, second)
        assert status.lease.token != dead.token
        assert second.saw("the group runs: watching it as it is")
        capsys.readouterr()
        assert main(s.cli("supervise", "--end")) == 0
        out = capsys.readouterr().out
        assert f"the supervisor {status.lease.holder} of toy ended" in out
        assert "toy runs on test: nothing was stopped" in out  # read after the end
        assert second.wait(60) == 0, second.output()
        assert "end of supervision on test by" in second.output()
    assert running(s) == before  # the same containers: nothing was restarted
    assert supervision(s).state == "disarmed"


def test_the_on_node_supervisor_installs_restarts_the_group_and_goes_with_stop(site, capsys):
    s = sparks(site(2, top=TOP))
    # the head's own key to every node: here, the test hosts' user key (on the head's disk)
    s.config_path.write_text(f'supervise_image = "{SUPERVISOR_IMAGE}"\n'
                             f'supervise_key_path = "{s.hosts.key_path}"\n'
                             + s.config_path.read_text())
    head = s.hosts.node("node1")
    build_supervisor_image(head)
    s.recipe("toy", toy_recipe())
    capsys.readouterr()
    assert main(s.cli("supervise", "toy", "--on-node", "--interval", "1")) == 0, \
        capsys.readouterr()
    out = capsys.readouterr().out
    assert "runs on node1 (sparktui-supervise-test)" in out
    status = wait_supervised(s)
    assert status.lease.mode == "on-node"
    logs = lambda: head.docker("logs", "sparktui-supervise-test").stdout  # noqa: E731
    # the laptop is gone: nothing of this process supervises; the head does
    before = running(s)
    s.hosts.node("node2").docker("kill", "sparktui-toy")
    eventually(lambda: all_new(s, before), 120, "every container of the group new", explain=logs,
               every=LOOK_OVER_SSH)
    eventually(lambda: "the group is serving again" in logs(), 60, "the restart logged",
               explain=logs, every=LOOK_OVER_SSH)
    # a second install while it runs is refused; with --json, a result line says by whom
    assert main(s.cli("supervise", "toy", "--on-node")) == 3
    capsys.readouterr()
    assert main(s.cli("supervise", "toy", "--on-node", "--json")) == 3
    result = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert result["result"] == "refused" and result["node"] == "node1", result
    assert result["holder"]["mode"] == "on-node" and "token" not in result["holder"], result
    assert main(s.cli("stop", "--yes")) == 0
    out = capsys.readouterr().out
    assert "removed sparktui-supervise-test" in out
    assert head.docker("ps", "-aq", "--filter", "name=sparktui-supervise").stdout == ""
    files = head.home / ".local/state/sparktui/supervise/on-node"
    assert not files.exists() and group(s) == {}
    status = supervision(s)
    assert status.state == "disarmed" and status.lease is None


def test_a_stalled_engine_is_restarted(site):
    s = sparks(site(2, top=TOP + "\ntelemetry_stall_seconds = 3"))
    s.recipe("toy", toy_recipe())
    with SupervisorProcess(s, "toy") as sup:
        wait_supervised(s, sup)
        before = running(s)
        head = s.hosts.node("node1")
        head.set_engine(waiting=4, gen_tps=0)  # requests queue up, no token comes out
        eventually(lambda: sup.saw("restarting the whole group: node1: no token generated for"),
                   120, "a stall seen", explain=sup.output, every=LOOK_OVER_SSH)
        head.set_engine(waiting=0)  # what the restart cures
        eventually(lambda: all_new(s, before), 120, "every container of the group new",
                   explain=sup.output, every=LOOK_OVER_SSH)
        event = eventually(lambda: (r := supervision(s).record) and r.restarts
                           and r.restarts[-1].ok and r.restarts[-1], 60, "the restart recorded",
                           every=LOOK_OVER_SSH)
        assert event.failure.kind == "stalled" and event.failure.node == "node1"


def _still_there(sup: SupervisorProcess) -> bool:
    if sup.proc.poll() is not None:
        raise AssertionError(f"the supervisor ended: {sup.output()}")
    return True


def test_a_node_that_does_not_answer_at_the_start_is_waited_for_not_decided_on(site):
    # a healthy group serves; node2's docker dies before a supervisor starts: its look
    # says nothing, which is not "no container there" (the group is not restarted around
    # it, nor stopped as "not whole"): the supervisor waits for node2 to answer
    s = sparks(site(2, top=TOP))
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy", "--cluster", "test")) == 0
    before = running(s)
    assert before
    runs = docker_runs(s, "node1")
    node2 = s.hosts.node("node2")
    node2.docker_down()
    with SupervisorProcess(s, "toy") as sup:
        def untouched(then=lambda: True):
            """node1's container as served (and the supervisor still there), then ``then``."""
            assert _still_there(sup)
            assert group(s, ("node1",)) == {"node1": before["node1"]}, sup.output()
            assert "the group is not" not in sup.output(), sup.output()
            return then()

        eventually(lambda: untouched(lambda: sup.saw("waiting for node2")), 120,
                   "the supervisor waiting for node2", explain=sup.output, every=LOOK_OVER_SSH)
        # it looks at node2 again and again (its docker listing, through the CLI once its
        # API does not answer), and decides nothing meanwhile
        looked = len(s.hosts.recorded_docker("node2"))
        eventually(lambda: untouched(lambda: len(s.hosts.recorded_docker("node2")) >= looked + 3),
                   120, "three more looks at node2", explain=sup.output, every=LOOK_OVER_SSH)
        assert docker_runs(s, "node1") == runs and supervision(s).record.status == "waiting"
        # node2 answers again: only now does the supervisor decide. Its dockerd, killed
        # and started again (no live-restore), left node2's container exited: the group
        # is not whole, and is served again, once
        node2.docker_up()
        new = wait_supervised(s, sup) and all_new(s, before)
        assert new, (group(s), sup.output())
        out = sup.output()
        assert out.index("waiting for node2") < out.index(
            "the group is not whole: stopping it, then serving it again"), out
        assert "the group is not running" not in out and "restarting" not in out, out
        assert docker_runs(s, "node1") == runs + 1
        assert main(s.cli("stop", "--yes")) == 0
        assert sup.wait(60) == 0, sup.output()
        assert "nothing is restarted" in sup.output()
    assert group(s) == {} and supervision(s).state == "disarmed"


def test_a_stop_ends_a_supervisor_that_waits_for_a_node_to_answer(site):
    s = sparks(site(2, top=TOP))
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy", "--cluster", "test")) == 0
    assert running(s)
    s.hosts.node("node2").docker_down()
    with SupervisorProcess(s, "toy") as sup:
        eventually(lambda: _still_there(sup) and sup.saw("waiting for node2"), 120,
                   "the supervisor waiting for node2", explain=sup.output, every=LOOK_OVER_SSH)
        main(s.cli("stop", "--yes"))  # its mark is written on node1; node2's docker fails it
        assert sup.wait(60) == 0, sup.output()
        out = sup.output()
        assert "stop of test by" in out and "nothing is restarted" in out, out
        assert "the group is not" not in out, out
    assert supervision(s).state == "disarmed" and "node1" not in group(s, ("node1",))
