"""The pure parts of supervision: restart policy, stall, marks, and what is read back
from a node (any text gives a value or None, never an exception). No hosts here."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from sparktui.engine.supervise.codes import failure_said, reason_said
from sparktui.engine.supervise.policy import (
    GiveUp,
    Policy,
    Restart,
    StallWatch,
    backoff_delay,
    counts,
    decide,
    restarts_within,
)
from sparktui.engine.supervise.record import (
    Failure,
    Lease,
    Mark,
    Reason,
    Record,
    RestartEvent,
    parse_status,
)
from sparktui.present.supervision import status_line

POLICY = Policy(interval=5, failure_checks=2, max_restarts=3, window=1800, backoff=10,
                backoff_max=60, lease=30, stall=300, ready_timeout=600)


def test_the_first_restart_of_a_window_is_at_once_then_the_wait_doubles_up_to_its_cap():
    assert [backoff_delay(POLICY, k) for k in range(6)] == [0, 10, 20, 40, 60, 60]


def test_restarts_are_bounded_in_their_window_and_old_ones_age_out():
    now = 10_000.0
    assert decide(POLICY, [], now, ever_healthy=True) == Restart(0)
    assert decide(POLICY, [now - 60], now, ever_healthy=True) == Restart(10)
    recent = [now - 300, now - 200, now - 100]
    given_up = decide(POLICY, recent, now, ever_healthy=True)
    assert given_up == GiveUp(Reason("too_many_restarts", {"restarts": 3, "window": 1800}))
    old = [now - 4000, now - 3000, now - 2000]
    assert restarts_within(old, now, 1800) == 0
    assert decide(POLICY, old, now, ever_healthy=True) == Restart(0)


def test_a_group_never_healthy_is_never_restarted():
    assert decide(POLICY, [], 0.0, ever_healthy=False) == GiveUp(Reason("never_healthy"))


def test_a_loading_head_counts_only_after_the_ready_timeout_but_a_gone_container_at_once():
    api = [Failure("health", "n1", "timeout")]
    gone = [Failure("not_running", "n2", "exited (1)")]
    assert not counts(api, ever_healthy=False, since_armed=10, policy=POLICY)
    assert counts(api, ever_healthy=False, since_armed=600, policy=POLICY)
    assert counts(api, ever_healthy=True, since_armed=10, policy=POLICY)
    assert counts(gone, ever_healthy=False, since_armed=10, policy=POLICY)
    assert not counts([], ever_healthy=True, since_armed=10_000, policy=POLICY)


def test_a_stall_is_waiting_requests_and_a_counter_that_does_not_move():
    watch = StallWatch(300)
    assert watch.update(0, waiting=2, generated=100) is None
    assert watch.update(200, waiting=2, generated=100) is None
    assert watch.update(301, waiting=2, generated=100) == 301
    assert watch.update(302, waiting=2, generated=150) is None  # tokens again: not stalled
    assert watch.update(500, waiting=2, generated=150) is None
    assert watch.update(700, waiting=0, generated=150) is None  # nothing waits: idle is fine
    assert watch.update(2000, waiting=1, generated=150) is None  # a new wait starts now
    assert watch.update(2300, waiting=1, generated=150) == 300


def test_marks_disarm_their_own_scope_only():
    stop_all = Mark("a", "stop", "2nodes")
    stop_other = Mark("b", "stop", "2nodes", "other")
    stop_mine = Mark("c", "stop", "2nodes", "glm")
    assert stop_all.disarms("2nodes", "glm") and stop_mine.disarms("2nodes", "glm")
    assert not stop_other.disarms("2nodes", "glm")
    assert not Mark("d", "stop", "4nodes").disarms("2nodes", "glm")
    assert Mark("e", "power_off").disarms("2nodes", "glm")  # a node going down: every group
    assert Mark("f", "end", "2nodes").disarms("2nodes", "glm")
    assert not Mark("g", "arm", "2nodes").disarms("2nodes", "glm")


def test_marks_lease_and_record_survive_their_round_trip():
    mark = Mark("id1", "stop", "c", "r", "ops@laptop", 12.5)
    assert Mark.parse_lines(mark.line() + "garbage\n" + mark.line()) == [mark, mark]
    lease = Lease("tok", 30, "ops@laptop pid 7", "c", "r", "on-node", 1.0)
    assert Lease.parse(lease.text()) == lease
    event = RestartEvent(5.0, Failure("health", "n1", "timeout"), True)
    record = Record("c", "r", "ops@laptop pid 7", "foreground", "watching", 5, 1800, 3, 1.0,
                    9.0, (event,), Reason("disarmed", {"by": "x", "at": 3.0}), ("a", "b"), "n1",
                    7.0)
    assert Record.parse(record.text()) == record


@given(st.text())
def test_any_text_from_a_node_parses_to_a_value_or_none(text):
    Mark.parse_lines(text)
    Lease.parse(text)
    Record.parse(text)
    status = parse_status("n1", text)
    status_line(status, 0.0)
    assert status.state in ("supervised", "lost", "none") or status.record is not None


@given(st.dictionaries(st.sampled_from(["cluster", "recipe", "status", "restarts", "reason",
                                        "last_lines", "window", "max_restarts", "updated",
                                        "healthy_since"]),
                       st.one_of(st.none(), st.booleans(), st.integers(), st.floats(),
                                 st.text(), st.lists(st.text()),
                                 st.lists(st.dictionaries(st.text(), st.text())))))
def test_any_json_record_reads_and_prints(data):
    record = Record.parse(json.dumps(data))
    assert record is not None
    status = parse_status("n1", "@@sparktui-state\n" + json.dumps(data) + "\n")
    status_line(status, 0.0)


def test_status_reads_a_live_lease_a_lost_one_and_a_record():
    lease = Lease("tok", 30, "ops@laptop pid 7", "c", "r")
    record = Record("c", "r", lease.holder, "foreground", "watching", 5, 600, 3, 0.0, 1.0,
                    (RestartEvent(1.0, Failure("not_running", "n2", "exited (137)"), True),))
    text = f"@@sparktui-lease 4\n{lease.text()}@@sparktui-state\n{record.text()}"
    live = parse_status("n1", text)
    assert live.active and live.state == "supervised" and live.lease_age == 4
    line = status_line(live, 2.0)
    assert line.startswith("r supervised by ops@laptop pid 7 (foreground); restarts 1 in the")
    assert "because n2: its container is exited (137)" in line
    lost = parse_status("n1", text.replace("lease 4", "lease 31"))
    assert lost.state == "lost" and "no heartbeat for" in status_line(lost, 2.0)
    assert parse_status("n1", "").state == "none" and status_line(parse_status("n1", ""), 0) \
        is None


def test_untrusted_words_stay_on_one_line():
    hostile = Failure("not_running", "n\x1b[2J1", "exited\n(1)\u202e")
    text = str(failure_said(hostile))
    assert "\x1b" not in text and "\n" not in text and "\u202e" not in text
    assert "\n" not in str(reason_said(Reason("lease_lost", {"holder": "a\nb"})))
    lines = {"code": "layout.lines", "params": {"head": "exited", "tail": "forged line"}}
    kept = {"code": "layout.colon", "params": {"head": lines, "tail": ["a", "b\n"]},
            "units": {"tail": {"sep": "\n"}}}
    for detail in (lines, kept):
        failure = Failure.from_dict({"kind": "missing", "node": "n1", "detail": detail})
        reason = Reason.from_dict({"code": "serve_failed", "detail": detail})
        assert failure is not None and reason is not None
        for text in (str(failure_said(failure)), str(reason_said(reason))):
            assert "\n" not in text and "forged" not in text, text
    assert str(reason_said(Reason("no such code"))) == "no such code"


KEPT = st.fixed_dictionaries({
    "code": st.sampled_from(["serve_said.no_answer", "layout.colon", "layout.lines",
                             "end_said.x", "x"]),
    "params": st.dictionaries(st.sampled_from(["seconds", "head", "tail"]), st.one_of(
        st.integers(), st.floats(), st.text(), st.lists(st.integers()))),
    "units": st.one_of(st.text(), st.dictionaries(st.sampled_from(["seconds", "head", "tail"]),
                                                  st.one_of(st.text(), st.dictionaries(
                                                      st.text(), st.text()))))})
"""A sentence a node kept (a failed serve's detail), with units a node may have bent."""


@given(st.sampled_from(["never_healthy", "too_many_restarts", "serve_failed", "disarmed",
                        "interrupted", "lease_lost", "memory_not_reclaimed", "x"]),
       st.dictionaries(st.sampled_from(["restarts", "window", "node", "step", "detail",
                                        "action", "cluster", "recipe", "by", "at", "holder",
                                        "available", "needed", "waited"]),
                       st.one_of(st.none(), st.booleans(), st.integers(), st.floats(),
                                 st.text(), KEPT, st.dictionaries(st.text(), st.text()))))
def test_any_reason_read_back_is_put_into_words(code, values):
    reason = Reason.from_dict(json.loads(json.dumps({"code": code, **values})))
    assert reason is not None and "\n" not in str(reason_said(reason))


def test_a_member_that_exited_vanished_or_restarted_behind_its_back_is_a_failure():
    from sparktui.engine.status import Workload
    from sparktui.engine.supervise.checks import Member, NodeLook, member_failures, started_of

    def w(name: str, state: str = "running", started: str = "t0", restarts: int = 0):
        return Workload(name, "toy", "c", "n1", 0, "head", "docker", state,
                        status=state if state == "running" else f"{state} (1)",
                        started_at=started, restarts=restarts)

    group = [Member("n1", "sparktui-toy"), Member("n2", "sparktui-toy")]
    healthy = {"n1": NodeLook("n1", [w("sparktui-toy")], []),
               "n2": NodeLook("n2", [w("sparktui-toy")], [])}
    started = started_of(group, healthy)
    assert member_failures(group, healthy, started) == []
    exited = {**healthy, "n2": NodeLook("n2", [w("sparktui-toy", "exited")], [])}
    assert member_failures(group, exited, started) == [
        Failure("not_running", "n2", "exited (1)")]
    again = {**healthy, "n2": NodeLook("n2", [w("sparktui-toy", started="t1")], [])}
    assert member_failures(group, again, started)[0].kind == "restarted"
    counted = {**healthy, "n2": NodeLook("n2", [w("sparktui-toy", restarts=1)], [])}
    assert member_failures(group, counted, started)[0].kind == "restarted"
    gone = {**healthy, "n2": NodeLook("n2", [], [])}
    assert member_failures(group, gone, started)[0].kind == "missing"
    down = {**healthy, "n2": NodeLook("n2", error="timeout")}
    assert member_failures(group, down, started)[0].kind == "unreachable"


def test_one_command_per_node_gives_its_workloads_and_its_marks():
    from sparktui.engine.supervise.checks import MARKS_MARKER, parse_look

    mark = Mark("m1", "stop", "c")
    look = parse_look("n1", f"[]\n@@sparktui-tmux@@\n{MARKS_MARKER}\n{mark.line()}")
    assert look.workloads == [] and look.marks == [mark] and look.error is None
    broken = parse_look("n1", "@@sparktui-docker-error@@\nCannot connect\n"
                              f"@@sparktui-tmux@@\n{MARKS_MARKER}\n")
    assert broken.workloads is None and "Cannot connect" in str(broken.error)


def test_a_look_whose_docker_listing_came_through_the_api_reads_the_rest_and_the_marks():
    from sparktui.engine.supervise.checks import MARKS_MARKER, parse_look
    from sparktui.plan.runtime.base import Found, Listing

    mark = Mark("m1", "stop", "c")
    head = Found("sparktui-toy", {"recipe": "toy", "role": "head"}, "running", "running",
                 started_at="2026-12-02T03:00:00Z", restarts=1)
    tmux = ('== sparktui-host\nSPARKTUI_LABEL_RECIPE="host"; export SPARKTUI_LABEL_RECIPE;\n'
            'SPARKTUI_LABEL_ROLE="worker"; export SPARKTUI_LABEL_ROLE;\n')  # show-environment -s
    look = parse_look("n1", f"{tmux}{MARKS_MARKER}\n{mark.line()}", {"docker": Listing([head])})
    assert [(w.name, w.runtime, w.role) for w in look.workloads] == [
        ("sparktui-toy", "docker", "head"), ("sparktui-host", "tmux", "worker")]
    assert (look.workloads[0].started_at, look.workloads[0].restarts) == (
        "2026-12-02T03:00:00Z", 1)
    assert look.marks == [mark] and look.error is None
    down = parse_look("n1", f"{MARKS_MARKER}\n", {"docker": Listing([], "Cannot connect")})
    assert down.workloads is None and "Cannot connect" in str(down.error)
