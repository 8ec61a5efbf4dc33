"""Supervision as the dashboard shows it, computed without widgets: the header's and the
clusters pane's mark, the alerts of restarts and give-ups, and what is new since the last
health check (one notification each).

Everything comes from ``ClusterHealth.supervision``, read back from the cluster's head, so
every operator's dashboard shows the same whoever runs the supervisor. The words are
``sparktui.present.supervision``'s (``status_line``, ``restart_line``), as the CLI's.
"""

from __future__ import annotations

from dataclasses import dataclass

from sparktui.engine.api import SupervisionStatus
from sparktui.i18n import _, ngettext
from sparktui.present.supervision import NOW, restart_line, status_line

ALERT_RESTARTS = 2
"""Restarts of the window the alerts strip lists (newest first)."""
ALERTING = frozenset({"supervised", "gave_up", "lost"})
"""States whose restarts are alerts; after an operator ended supervision they are history
(the head's details keep them)."""


@dataclass(frozen=True)
class Mark:
    """A short mark: ``⟳ supervised · 1 restart``, and how it is styled."""

    text: str
    style: str


def supervision_mark(status: SupervisionStatus | None, now: float, *,
                     short: bool = False, serving: bool = False) -> Mark | None:
    """The header's mark (``short``: without the count of restarts, for a narrow header
    and the clusters pane); None when nothing supervises the cluster and nothing went
    wrong (an ended or disarmed supervision leaves no mark). ``serving``: a supervised
    group that serves is green, one that does not yellow."""
    if status is None:
        return None
    state, record = status.state, status.record
    if state == "supervised":
        if record is not None and record.status in NOW and record.status != "waiting":
            word = (_("restarting") if record.status in ("restarting", "memory")
                    else _("restart soon"))
            return Mark("⟳ " + word, "bold yellow")
        text = "⟳ " + _("supervised")
        count = record.restarts_within(now) if record is not None else 0
        if count and not short:
            text += " · " + ngettext("{n} restart", "{n} restarts", count).format(n=count)
        return Mark(text, "green" if serving else "bold yellow")
    if state == "gave_up":
        return Mark("✖ " + (_("gave up") if short else _("supervision gave up")), "bold red")
    if state == "lost":
        return Mark("⚠ " + (_("lost") if short else _("supervisor lost")), "bold yellow")
    return None


@dataclass(frozen=True)
class SupervisionAlert:
    """One restart of the window, or the give-up: ``key`` is what makes it new."""

    key: str
    text: str
    gave_up: bool = False


def supervision_alerts(status: SupervisionStatus | None, now: float,
                       limit: int = ALERT_RESTARTS) -> list[SupervisionAlert]:
    """The give-up first, then the window's restarts, newest first."""
    if status is None or status.record is None or status.state not in ALERTING:
        return []
    record = status.record
    alerts = []
    if status.state == "gave_up":
        line = status_line(status, now) or ""
        alerts.append(SupervisionAlert(f"gave_up:{record.cluster}:{record.since:.3f}",
                                       line, gave_up=True))
    recent = [r for r in record.restarts if r.at > now - record.window]
    for event in reversed(recent[-limit:]):
        alerts.append(SupervisionAlert(
            f"restart:{record.cluster}:{event.at:.3f}",
            _("supervisor: {line}").format(line=restart_line(event))))
    return alerts


def new_alerts(seen: set[str] | None, alerts: list[SupervisionAlert]) -> list[SupervisionAlert]:
    """What to notify: the alerts not in ``seen`` (None: the cluster's first health check,
    whose alerts the strip shows without a notification for each old one)."""
    if seen is None:
        return []
    return [a for a in alerts if a.key not in seen]


class SupervisionAlerts:
    """Per cluster: the alerts its last health check calls for, and the keys already
    notified (so each restart and each give-up is notified once)."""

    def __init__(self) -> None:
        self._alerts: dict[str, list[SupervisionAlert]] = {}
        self._seen: dict[str, set[str]] = {}

    def update(self, cluster: str, status: SupervisionStatus | None,
               now: float) -> list[SupervisionAlert]:
        """Take a new health check's supervision; the alerts to notify now."""
        alerts = supervision_alerts(status, now)
        fresh = new_alerts(self._seen.get(cluster), alerts)
        self._alerts[cluster] = alerts
        self._seen.setdefault(cluster, set()).update(a.key for a in alerts)
        return fresh

    def alerts(self, cluster: str) -> list[SupervisionAlert]:
        return self._alerts.get(cluster, [])
