"""An ended supervision is history (issue 29, items 11, 12, 22), from the values a head
keeps and the shell line that clears them, run by a real sh (no hosts needed): a record
or lease of another cluster is not this cluster's; a give-up (or a lost supervisor) that
an operator's action concerns is cleared, a live supervisor never; what a confirmation
and `supervise --end` say."""

from __future__ import annotations

import io
import os
import time
from dataclasses import replace

import pytest
from rich.console import Console
from supervise_support import sh

from sparktui.cli.supervise_cmd import print_supervision
from sparktui.engine.status import ClusterHealth, NodeHealth, Workload
from sparktui.engine.supervise import history, shell
from sparktui.engine.supervise.disarm import Disarmed
from sparktui.engine.supervise.ending import ending
from sparktui.engine.supervise.record import (
    Failure,
    Lease,
    Mark,
    Reason,
    Record,
    RestartEvent,
    SupervisionStatus,
    parse_status,
)
from sparktui.present.supervision import ending_lines, status_line
from sparktui.tui.screens.confirm import health_text
from sparktui.tui.viewmodel.supervision import supervision_alerts, supervision_mark

__all__ = ["sh"]  # a fixture, used by name

NOW = time.time()
GAVE_UP = Record("tb2", "tbv", "ops@laptop pid 7", "foreground", "gave_up", 1, 600, 2,
                 NOW - 900, NOW - 600,
                 (RestartEvent(NOW - 700, Failure("not_running", "n2", "exited (1)"), True),),
                 Reason("too_many_restarts", {"restarts": 2, "window": 600}))
ENDED = replace(GAVE_UP, status="disarmed", reason=Mark(
    "m", "stop", "tb2", None, "ops@laptop", NOW - 500).reason())
LEASE = Lease("tok", 60, "ops@laptop pid 7", "tb2", "tbv", "foreground", NOW - 900)


def _stop(cluster: str = "tb2", recipe: str | None = None, action: str = "stop") -> Mark:
    return Mark("m1", action, cluster, recipe, "ops@laptop", NOW)


# -- item 11: another cluster's lease and record are not this cluster's ----------------
def test_a_heads_record_and_lease_of_another_cluster_are_not_this_clusters():
    status = SupervisionStatus("spark1", LEASE, 2.0, GAVE_UP, digest="d")
    assert status.of("tb2") == status
    other = status.of("local")
    assert other.state == "none" and other.lease is None and other.record is None
    assert other.lease_age is None and other.digest is None
    assert status_line(other, NOW) is None and supervision_alerts(other, NOW) == []
    # a record of another cluster under a live lease of this one: the lease only
    mixed = SupervisionStatus("spark1", LEASE, 2.0, replace(GAVE_UP, cluster="2nodes"))
    assert mixed.of("tb2").record is None and mixed.of("tb2").state == "supervised"
    assert mixed.of("2nodes").lease is None and mixed.of("2nodes").state == "gave_up"


# -- item 12: what clears, and what never does ------------------------------------------
@pytest.mark.parametrize("mark, cleared", [
    (_stop(), True), (_stop(recipe="tbv"), True), (_stop(action="end"), True),
    (Mark("m1", "power_off"), True),
    (_stop(recipe="other"), False),  # another recipe's stop: that give-up stays
    (_stop(cluster="local"), False),
])
def test_a_give_up_is_cleared_by_an_action_that_concerns_its_group(mark, cleared):
    concerns, reason = history.by_mark(mark)
    record, lapsed = history.closing(SupervisionStatus("n1", record=GAVE_UP), concerns, reason)
    assert lapsed is None
    assert (record is not None) == cleared
    if record is not None:
        assert record.cleared == mark.reason() and record.status == "gave_up"
        status = SupervisionStatus("n1", record=record)
        assert status.state == "ended" and not status.current
        assert supervision_mark(status, NOW) is None and supervision_alerts(status, NOW) == []


def test_a_new_serve_clears_its_recipes_give_up_only():
    status = SupervisionStatus("n1", record=GAVE_UP)
    record, _lapsed = history.closing(status, *history.by_serve("tb2", "tbv")[:1],
                                      history.by_serve("tb2", "tbv")[1])
    assert record is not None and record.cleared.code == "served"
    assert "cleared by serve of tbv by" in status_line(SupervisionStatus("n1", record=record),
                                                       NOW)
    assert history.closing(status, *history.by_serve("tb2", "other"))[0] is None


def test_a_live_supervisor_is_never_touched_and_a_lost_ones_lease_goes():
    concerns, reason = history.by_mark(_stop())
    live = SupervisionStatus("n1", LEASE, 2.0, replace(GAVE_UP, status="watching"))
    assert history.closing(live, concerns, reason) == (None, None)
    lost = replace(live, lease_age=120.0)
    record, lapsed = history.closing(lost, concerns, reason)
    assert lapsed == "tok" and record is not None and record.cleared == reason
    line = status_line(SupervisionStatus("n1", record=record), NOW)
    assert "its supervisor ops@laptop pid 7 was lost; cleared by stop of tb2" in line
    # an ended record stays as it is: history already
    assert history.closing(SupervisionStatus("n1", record=ENDED), concerns, reason) == (
        None, None)
    assert history.closing(replace(live, error="timeout"), concerns, reason) == (None, None)


def test_the_clearing_line_replaces_only_the_record_it_read_and_only_a_lapsed_lease(sh):
    assert sh(shell.write_state(), GAVE_UP.text()).returncode == 0
    assert sh(shell.acquire("tok", 5), LEASE.text()).stdout == "taken\n"
    read = parse_status("n1", sh(shell.read_status()).stdout)
    assert read.digest is not None and read.record == GAVE_UP
    cleared = replace(GAVE_UP, cleared=_stop().reason())
    # the lease is fresh: it stays, whatever the token
    done = sh(shell.close(read.digest, "tok"), cleared.text())
    assert done.returncode == 0 and done.stdout.split() == ["record"]
    assert (sh.home / "lease").exists()
    after = parse_status("n1", sh(shell.read_status()).stdout)
    assert after.record == cleared and after.lease == LEASE
    # the record changed since it was read (a new supervisor wrote it): left alone
    assert sh(shell.close(read.digest, None), GAVE_UP.text()).stdout == ""
    assert parse_status("n1", sh(shell.read_status()).stdout).record == cleared
    old = time.time() - LEASE.ttl - 10
    os.utime(sh.home / "lease", (old, old))  # its heartbeat now older than its ttl
    assert sh(shell.close(None, "other")).stdout == ""  # another holder's: stays
    assert sh(shell.close(None, "tok")).stdout.split() == ["lease"]
    assert not (sh.home / "lease").exists()
    assert sorted(p.name for p in sh.home.iterdir()) == ["lock", "state.json"]


# -- item 22: an ended record is history: not in a confirmation ------------------------
def _health(supervision: SupervisionStatus, *workloads: Workload) -> ClusterHealth:
    return ClusterHealth("tb2", [NodeHealth("n1", True, workloads=list(workloads))], NOW,
                         supervision=supervision)


def _plain(text) -> str:
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(text)
    return console.export_text()


@pytest.mark.parametrize("status, shown", [
    (SupervisionStatus("n1", record=ENDED), False),
    (SupervisionStatus("n1", record=replace(GAVE_UP, cleared=_stop().reason())), False),
    (SupervisionStatus("n1", record=GAVE_UP), True),
    (SupervisionStatus("n1", LEASE, 2.0, replace(GAVE_UP, status="watching")), True),
    (SupervisionStatus("n1", LEASE, 120.0), True),
    (SupervisionStatus("n1", error="timeout"), True),
])
def test_a_confirmation_shows_supervision_that_is_never_one_that_ended(status, shown, capsys):
    health = _health(status)
    text = _plain(health_text(health, lambda w: True))
    assert ("⟳" in text) == shown, text
    print_supervision(status, NOW, history=False)
    assert bool(capsys.readouterr().out) == shown
    print_supervision(status, NOW)  # health: history too
    assert capsys.readouterr().out


# -- item 12: supervise --end says what it did, and whether the group runs -------------
def _workload(recipe: str, state: str = "running") -> Workload:
    return Workload(f"sparktui-{recipe}", recipe, "tb2", "n1", 0, "head", "docker", state)


def test_end_says_what_it_did_and_what_runs_after():
    nothing = Disarmed([], [], [], [])
    lines = ending_lines(ending("tb2", None, SupervisionStatus("n1"), nothing, [],
                                _health(SupervisionStatus("n1"))))
    assert lines == ["nothing supervised tb2: nothing was ended", "nothing runs on tb2"]
    ended = Disarmed([], [LEASE], [], [])
    lines = ending_lines(ending("tb2", None, SupervisionStatus("n1", LEASE, 2.0), ended,
                                [("n1", "sparktui-supervise-tb2")],
                                _health(SupervisionStatus("n1"), _workload("tbv"))))
    assert lines == ["the supervisor ops@laptop pid 7 of tbv ended",
                     "removed sparktui-supervise-tb2 from n1",
                     "tbv runs on tb2: nothing was stopped"]
    cleared = Disarmed([], [], [], [history.Cleared("n1", replace(
        GAVE_UP, cleared=_stop(action="end").reason()))])
    lines = ending_lines(ending("tb2", None, SupervisionStatus("n1", record=GAVE_UP), cleared,
                                [], _health(SupervisionStatus("n1"),
                                            _workload("tbv", "exited"))))
    assert lines == ["the give-up of tbv's supervision is history now",
                     "tbv does not run on tb2 (1 container left, none running)"]
    unknown = ClusterHealth("tb2", [NodeHealth("n1", False, error="timeout")], NOW)
    lines = ending_lines(ending("tb2", "tbv", SupervisionStatus("n1"),
                                Disarmed(["n1"], [], [], [], ["n1"]), [], unknown))
    assert lines == ["could not read the supervision on n1: a supervisor there, if any, "
                     "reads the mark before any restart",
                     "the mark could not be written on n1",
                     "what runs on tb2 is unknown: n1: timeout"]
    # a head that took the mark but whose supervision could not be read: not "nothing"
    lines = ending_lines(ending("tb2", "tbv", SupervisionStatus("n1"),
                                Disarmed([], [], [], [], ["n1"]), [],
                                _health(SupervisionStatus("n1"), _workload("tbv"))))
    assert not any(line.startswith("nothing supervised") for line in lines), lines


def test_a_live_supervisor_between_its_stop_and_its_serve_is_never_nothing_running():
    """Mid-restart nothing shows on the nodes, and the supervisor brings the group back
    unless a stop's mark ends it: "nothing runs, nothing to stop" would write no mark."""
    from sparktui.engine.workloads.restart import nothing_runs

    def health(age: float) -> ClusterHealth:
        lease = Lease("t", 8, "ops@laptop pid 1", "tb2", "toy")
        return ClusterHealth("tb2", [NodeHealth("n1", True)], 0.0,
                             supervision=SupervisionStatus("n1", lease, age))

    assert not nothing_runs(health(1.0), None) and not nothing_runs(health(1.0), "toy")
    assert nothing_runs(health(1.0), "big")  # it supervises another recipe
    assert nothing_runs(health(60.0), "toy")  # its heartbeat is long gone: lost, not live
