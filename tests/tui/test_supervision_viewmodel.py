"""The dashboard's view of supervision, from values a head keeps: the marks, the alerts,
and which of them are new (one notification each)."""

from __future__ import annotations

from dataclasses import replace

from sparktui.engine.supervise.record import (
    Failure,
    Lease,
    Reason,
    Record,
    RestartEvent,
    SupervisionStatus,
)
from sparktui.tui.viewmodel.supervision import (
    SupervisionAlerts,
    supervision_alerts,
    supervision_mark,
)

NOW = 1_750_000_000.0
LEASE = Lease("tok", 60, "ops@laptop pid 4", "c", "toy", "foreground", NOW - 3600)


def _restart(ago: float, node: str = "n2", ok: bool | None = True) -> RestartEvent:
    return RestartEvent(NOW - ago, Failure("not_running", node, "exited (137)"), ok)


def _status(state: str, *restarts: RestartEvent, status: str = "watching") -> SupervisionStatus:
    record = Record("c", "toy", LEASE.holder, "foreground", status, 1, 1800, 3, NOW - 3600,
                    NOW - 5, restarts, Reason("too_many_restarts", {"restarts": 3,
                                                                    "window": 1800})
                    if state == "gave_up" else None)
    if state == "supervised":
        return SupervisionStatus("n1", LEASE, 2.0, record)
    if state == "lost":
        return SupervisionStatus("n1", LEASE, 120.0, record)
    return SupervisionStatus("n1", None, None, replace(record, status=state))


def test_marks_say_what_supervision_is_and_nothing_once_it_ended():
    assert supervision_mark(None, NOW) is None
    assert supervision_mark(SupervisionStatus("n1"), NOW) is None  # never supervised
    assert supervision_mark(_status("disarmed", _restart(60)), NOW) is None
    assert supervision_mark(_status("ended"), NOW) is None
    supervised = _status("supervised", _restart(3000), _restart(600), _restart(60))
    mark = supervision_mark(supervised, NOW)
    assert mark is not None and mark.text == "⟳ supervised · 2 restarts"  # 3000 s: out
    short = supervision_mark(supervised, NOW, short=True, serving=True)
    assert short is not None and short.text == "⟳ supervised" and short.style == "green"
    assert supervision_mark(_status("supervised"), NOW).text == "⟳ supervised"  # type: ignore[union-attr]
    restarting = supervision_mark(_status("supervised", status="restarting"), NOW)
    assert restarting is not None and restarting.text == "⟳ restarting"
    gave_up = supervision_mark(_status("gave_up"), NOW)
    assert gave_up is not None and gave_up.text == "✖ supervision gave up"
    assert supervision_mark(_status("gave_up"), NOW, short=True).text == "✖ gave up"  # type: ignore[union-attr]
    lost = supervision_mark(_status("lost"), NOW)
    assert lost is not None and lost.text == "⚠ supervisor lost"


def test_alerts_are_the_give_up_then_the_newest_restarts_of_the_window():
    status = _status("gave_up", _restart(3000), _restart(900, "n1"), _restart(300),
                     _restart(60, ok=False))
    alerts = supervision_alerts(status, NOW)
    assert [a.gave_up for a in alerts] == [True, False, False]  # at most two restarts
    assert alerts[0].text.startswith("supervision of toy gave up at ")
    assert "3 restarts in the last 30m" in alerts[0].text
    assert alerts[1].text.startswith("supervisor: ") and alerts[1].text.endswith("failed: ")
    assert alerts[2].key.endswith(f"{NOW - 300:.3f}")
    # after an operator ended it, restarts are history, not alerts
    assert supervision_alerts(_status("disarmed", _restart(60)), NOW) == []
    assert supervision_alerts(SupervisionStatus("n1", error="timeout"), NOW) == []


def test_each_restart_and_give_up_is_new_once():
    book = SupervisionAlerts()
    first = _status("supervised", _restart(600))
    assert book.update("c", first, NOW) == []  # the first look: shown, not notified
    assert len(book.alerts("c")) == 1
    assert book.update("c", first, NOW + 1) == []
    again = _status("supervised", _restart(600), _restart(10, ok=None))
    fresh = book.update("c", again, NOW + 2)
    assert [a.key for a in fresh] == [f"restart:c:{NOW - 10:.3f}"]
    done = _status("supervised", _restart(600), _restart(10, ok=True))  # same restart, ended
    assert book.update("c", done, NOW + 3) == []
    gave_up = _status("gave_up", _restart(600), _restart(10))
    assert [a.gave_up for a in book.update("c", gave_up, NOW + 4)] == [True]
    assert book.update("other", gave_up, NOW + 4) == []  # another cluster: its first look
