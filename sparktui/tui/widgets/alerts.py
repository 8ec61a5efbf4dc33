"""The alerts strip: supervision's give-up and restarts, what crossed a threshold, since
when, and what cleared lately."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from sparktui.engine.api import Alert
from sparktui.fmt import format_time
from sparktui.i18n import _
from sparktui.present.alerts import describe
from sparktui.tui.viewmodel.supervision import SupervisionAlert
from sparktui.tui.widgets.paint import show

MAX_ACTIVE = 4
MAX_CLEARED = 2


def clock_time(t: float) -> str:
    return format_time(t)


def alert_lines(alerts: list[Alert], *, max_active: int = MAX_ACTIVE,
                max_cleared: int = MAX_CLEARED,
                supervision: list[SupervisionAlert] | None = None) -> Text:
    active = [a for a in alerts if a.active]
    cleared = [a for a in alerts if not a.active]
    text = Text(no_wrap=True, overflow="ellipsis")
    for alarm in supervision or []:
        if text:
            text.append("\n")
        text.append(" ✖ " if alarm.gave_up else " ⟳ ", style="bold")
        text.append(alarm.text)
    for alert in active[:max_active]:
        if text:
            text.append("\n")
        text.append(" ⚠ " + clock_time(alert.since) + " ", style="bold")
        text.append(describe(alert))
    if len(active) > max_active:
        text.append("\n   " + _("and {n} more").format(n=len(active) - max_active))
    for alert in cleared[:max_cleared]:
        if text:
            text.append("\n")
        text.append(" ✓ " + _("cleared {time}").format(time=clock_time(alert.cleared or 0))
                    + " ", style="dim")
        text.append(describe(alert) + " (" + _("since {time}").format(
            time=clock_time(alert.since)) + ")", style="dim")
    return text


class AlertsStrip(Static):
    """Hidden while nothing fired; red while an alert is active."""

    def show(self, alerts: list[Alert],
             supervision: list[SupervisionAlert] | None = None) -> None:
        """``supervision``: the cluster's give-up and recent restarts (always active)."""
        self.display = bool(alerts or supervision)
        self.set_class(bool(supervision) or any(a.active for a in alerts), "-active")
        show(self, alert_lines(alerts, supervision=supervision))
