"""A supervision in words: ``health``'s line and the dashboard's, the restarts, what an
end of supervision did (``supervise --end``, the dashboard's ``X``), the supervisor's
events as ``supervise`` prints them.

Every value here was read from a node or a container: ``_clean`` keeps each one on one
line and free of control characters wherever it is printed.
"""

from __future__ import annotations

from typing import Any

from sparktui.engine.api import (
    ALERTS,
    Ending,
    RestartEvent,
    SuperviseEvent,
    SupervisionStatus,
    cleared_said,
    clearing_said,
    failure_said,
    reason_said,
)
from sparktui.fmt import format_duration, format_time
from sparktui.i18n import N_, _, ngettext
from sparktui.visible import shorten, visible

NOW: dict[str, str] = {
    "restarting": N_("restarting now"), "backoff": N_("waiting before a restart"),
    "waiting": N_("waiting for a node that does not answer"),
    "memory": N_("waiting for the nodes' memory to come back before a restart"),
}
"""What an active supervisor is doing, when it is not just watching."""


def _clean(value: Any) -> str:
    return shorten(visible(str(value)), 300)


def event_line(event: SuperviseEvent, now: float) -> str:
    """``14:03:22 supervise ALERT restarting the whole group: node2: ... (1/2)``: what
    the supervisor said (``event.text``, a sentence as data) in words."""
    word = _("ALERT") + " " if event.kind in ALERTS else ""
    count = f" ({event.count}/{event.of})" if event.of else ""
    return f"{format_time(now)} {_('supervise')} {word}{visible(str(event.text))}{count}"


def restart_line(event: RestartEvent) -> str:
    """``14:03:22  node2: its container is exited 137  restarted``."""
    outcome = (_("restarted") if event.ok else
               _("under way") if event.ok is None else
               _("failed: {detail}").format(detail=_clean(event.detail)))
    return f"{format_time(event.at)}  {failure_said(event.failure)}  {outcome}"


def status_line(status: SupervisionStatus, now: float) -> str | None:
    """One line for ``health``; None when nothing was ever supervised there."""
    state, record, lease = status.state, status.record, status.lease
    if state == "none":
        return None
    if state == "unknown":
        return _("supervision unknown: {error}").format(error=_clean(status.error or ""))
    if state == "lost" and lease is not None:
        return _("supervisor {holder} lost: no heartbeat for {age}").format(
            holder=_clean(lease.holder), age=format_duration(status.lease_age or 0))
    if state == "supervised" and lease is not None:
        line = _("{recipe} supervised by {holder} ({mode})").format(
            recipe=_clean(lease.recipe), holder=_clean(lease.holder), mode=_clean(lease.mode))
        if record is not None:
            line += "; " + _("restarts {count} in the last {window}").format(
                count=record.restarts_within(now), window=format_duration(record.window))
            last = record.last_restart
            if last is not None:
                line += "; " + _("last restart at {time} because {reason}").format(
                    time=format_time(last.at), reason=failure_said(last.failure))
            if record.status in NOW:
                line += "; " + _(NOW[record.status])
        return line
    if record is None:
        return None
    if state == "ended" and record.cleared is not None:
        was = (_("it gave up ({reason})").format(reason=reason_said(record.reason))
               if record.status == "gave_up" else
               _("its supervisor {holder} was lost").format(holder=_clean(record.holder)))
        return _("{recipe} not supervised since {time}: {was}; cleared by {what}").format(
            recipe=_clean(record.recipe), time=format_time(record.updated), was=was,
            what=cleared_said(record.cleared))
    if state == "gave_up":
        return _("supervision of {recipe} gave up at {time}: {reason}").format(
            recipe=_clean(record.recipe), time=format_time(record.updated),
            reason=reason_said(record.reason))
    return _("{recipe} not supervised since {time}: {reason}").format(
        recipe=_clean(record.recipe), time=format_time(record.updated),
        reason=reason_said(record.reason))


def ending_lines(ending: Ending) -> list[str]:
    """What an end of supervision did, then whether each group it concerned runs."""
    d, where = ending.disarmed, _clean(ending.cluster)
    lines = [_("the supervisor {holder} of {recipe} ended").format(
        holder=_clean(lease.holder), recipe=_clean(lease.recipe)) for lease in d.ended]
    lines += [_("the supervisor {holder} of {recipe} is still running; it reads the mark "
                "before any restart").format(holder=_clean(lease.holder),
                                             recipe=_clean(lease.recipe))
              for lease in d.running]
    lines += [_("removed {container} from {node}").format(container=_clean(container),
                                                          node=_clean(node))
              for node, container in ending.removed]
    lines += [str(clearing_said(c)) for c in d.cleared]
    if d.unread:
        lines.append(_("could not read the supervision on {nodes}: a supervisor there, if "
                       "any, reads the mark before any restart").format(
            nodes=", ".join(map(_clean, d.unread))))
    if not (ending.did_something or d.unread or d.missed):  # unknown is never "nothing"
        lines.append(_("nothing supervised {recipe} on {cluster}: nothing was ended").format(
            recipe=_clean(ending.recipe), cluster=where) if ending.recipe else
            _("nothing supervised {cluster}: nothing was ended").format(cluster=where))
    if d.missed:
        lines.append(_("the mark could not be written on {nodes}").format(
            nodes=", ".join(map(_clean, d.missed))))
    for group in ending.groups:
        name = _clean(group.recipe)
        if group.running and group.running == group.total:
            lines.append(_("{recipe} runs on {cluster}: nothing was stopped").format(
                recipe=name, cluster=where))
        elif group.running:
            lines.append(ngettext(
                "{recipe} on {cluster} is not whole: {running} of {total} container runs",
                "{recipe} on {cluster} is not whole: {running} of {total} containers run",
                group.total).format(recipe=name, cluster=where, running=group.running,
                                    total=group.total))
        elif group.total:
            lines.append(ngettext("{recipe} does not run on {cluster} ({n} container left, "
                                  "none running)", "{recipe} does not run on {cluster} ({n} "
                                  "containers left, none running)", group.total).format(
                recipe=name, cluster=where, n=group.total))
        elif not ending.unknown:
            lines.append(_("{recipe} does not run on {cluster}").format(recipe=name,
                                                                       cluster=where))
    if ending.unknown:
        lines.append(_("what runs on {cluster} is unknown: {why}").format(
            cluster=where, why=_clean(ending.unknown)))
    elif not ending.groups:
        lines.append(_("{cluster} runs {recipes}: nothing was stopped").format(
            cluster=where, recipes=", ".join(map(_clean, ending.serving)))
            if ending.serving else _("nothing runs on {cluster}").format(cluster=where))
    return lines
