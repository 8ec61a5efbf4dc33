"""Supervision's codes in words, in the reader's language (the nodes keep the codes).

Every value here was read from a node or a container: ``visible`` keeps each one on one
line and free of control characters wherever it is printed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sparktui.engine.supervise.record import Failure, Mark, Reason, RestartEvent, SupervisionStatus
from sparktui.fmt import format_duration, format_size, format_time
from sparktui.i18n import N_, _, ngettext
from sparktui.labels import step_label
from sparktui.visible import shorten, visible

if TYPE_CHECKING:
    from sparktui.engine.supervise.ending import Ending
    from sparktui.engine.supervise.outcomes import Cleared, Short

FAILURES: dict[str, str] = {
    "missing": N_("{node}: its container {detail} is gone"),
    "not_running": N_("{node}: its container is {detail}"),
    "restarted": N_("{node}: its container was restarted outside sparktui ({detail})"),
    "unreachable": N_("{node}: unreachable ({detail})"),
    "health": N_("{node}: /health does not answer ({detail})"),
    "models": N_("{node}: /v1/models does not answer ({detail})"),
    "serve": N_("{node}: serve failed ({detail})"),
    "stalled": N_("{node}: no token generated for {detail} s while requests wait"),
}


NOW: dict[str, str] = {
    "restarting": N_("restarting now"), "backoff": N_("waiting before a restart"),
    "waiting": N_("waiting for a node that does not answer"),
    "memory": N_("waiting for the nodes' memory to come back before a restart"),
}
"""What an active supervisor is doing, when it is not just watching."""


def _seconds(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        else 0.0


def _clean(value: Any) -> str:
    return shorten(visible(str(value)), 300)


def failure_text(failure: Failure) -> str:
    template = FAILURES.get(failure.kind)
    node, detail = _clean(failure.node), _clean(failure.detail)
    if template is None:
        return f"{node}: {_clean(failure.kind)} ({detail})"
    return _(template).format(node=node, detail=detail)


def mark_text(mark: Mark) -> str:
    """``stop of toy on 2nodes by ops@laptop at 14:03:22``."""
    values = {"cluster": _clean(mark.cluster), "recipe": _clean(mark.recipe or ""),
              "by": _clean(mark.by or "?"), "at": format_time(mark.at) if mark.at else "?"}
    if mark.action == "power_off":
        return _("power off by {by} at {at}").format(**values)
    if mark.action == "end":
        return (_("end of supervision of {recipe} on {cluster} by {by} at {at}") if mark.recipe
                else _("end of supervision on {cluster} by {by} at {at}")).format(**values)
    return (_("stop of {recipe} on {cluster} by {by} at {at}") if mark.recipe
            else _("stop of {cluster} by {by} at {at}")).format(**values)


def _serve_failed(v: dict[str, Any]) -> str:
    return _("serve failed on {node} at {step}: {detail}").format(
        node=_clean(v.get("node") or "-"), step=step_label(str(v.get("step") or "-")),
        detail=_clean(v.get("detail") or ""))


REASONS: dict[str, Callable[[dict[str, Any]], str]] = {
    "never_healthy": lambda v: _(
        "the group never became healthy under supervision: it is not restarted"),
    "too_many_restarts": lambda v: ngettext(
        "{restarts} restart in the last {window}", "{restarts} restarts in the last {window}",
        v["restarts"] if isinstance(v.get("restarts"), int) else 2).format(
        restarts=_clean(v.get("restarts", "?")),
        window=format_duration(_seconds(v.get("window")))),
    "serve_failed": _serve_failed,
    "disarmed": lambda v: _("{what}: supervision ends, nothing is restarted").format(
        what=mark_text(_mark(v))),
    "interrupted": lambda v: {  # the group as the supervisor last saw it
        "restart": _("the supervisor was interrupted during a restart; the group is as the "
                     "restart's steps left it"),
        "unchecked": _("the supervisor was interrupted; the group is left as it is (its last "
                       "check did not pass)"),
    }.get(str(v.get("group")), _("the supervisor was interrupted; the group keeps running")),
    "memory_not_reclaimed": lambda v: _(
        "memory not reclaimed on {node}: reboot it ({available} available of the {needed} "
        "{recipe} needs, {seconds:g} s after its stop)").format(
        node=_clean(v.get("node") or "?"), available=format_size(_seconds(v.get("available"))),
        needed=format_size(_seconds(v.get("needed"))), recipe=_clean(v.get("recipe") or "?"),
        seconds=_seconds(v.get("waited"))),
    "lease_lost": lambda v: _("another supervisor took over: {holder}").format(
        holder=_clean(v.get("holder") or "?")),
}


def reason_text(reason: Reason | None) -> str:
    if reason is None:
        return "-"
    render = REASONS.get(reason.code)
    return render(reason.values) if render is not None else _clean(reason.code)


def short_text(short: Short, recipe: str) -> str:
    """``spark2: 12.0 GiB available of the 96.0 GiB toy needs``."""
    return _("{node}: {available} available of the {needed} {recipe} needs").format(
        node=_clean(short.node), available=format_size(short.available),
        needed=format_size(short.needed), recipe=_clean(recipe))


def cleared_text(reason: Reason) -> str:
    """What made a supervision history: ``stop of test by ops@laptop at 14:03:22``."""
    v = reason.values
    if reason.code == "served":
        return _("serve of {recipe} by {by} at {at}").format(
            recipe=_clean(v.get("recipe") or "?"), by=_clean(v.get("by") or "?"),
            at=format_time(_seconds(v.get("at"))))
    if reason.code == "disarmed":
        return mark_text(_mark(v))
    return reason_text(reason)


def _mark(v: dict[str, Any]) -> Mark:
    return Mark("", str(v.get("action") or ""), str(v.get("cluster") or ""),
                v.get("recipe") if isinstance(v.get("recipe"), str) else None,
                str(v.get("by") or ""), _seconds(v.get("at")))


def cleared_line(cleared: Cleared) -> str:
    """One progress line of a clearing on a head."""
    record, lease = cleared.record, cleared.lease
    if record is not None and record.status == "gave_up":
        return _("the give-up of {recipe}'s supervision is history now").format(
            recipe=_clean(record.recipe))
    holder = lease.holder if lease is not None else record.holder if record else "?"
    return _("the lost supervisor {holder} is history now").format(holder=_clean(holder))


def restart_line(event: RestartEvent) -> str:
    """``14:03:22  node2: its container is exited 137  restarted``."""
    outcome = (_("restarted") if event.ok else
               _("under way") if event.ok is None else
               _("failed: {detail}").format(detail=_clean(event.detail)))
    return f"{format_time(event.at)}  {failure_text(event.failure)}  {outcome}"


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
                    time=format_time(last.at), reason=failure_text(last.failure))
            if record.status in NOW:
                line += "; " + _(NOW[record.status])
        return line
    if record is None:
        return None
    if state == "ended" and record.cleared is not None:
        was = (_("it gave up ({reason})").format(reason=reason_text(record.reason))
               if record.status == "gave_up" else
               _("its supervisor {holder} was lost").format(holder=_clean(record.holder)))
        return _("{recipe} not supervised since {time}: {was}; cleared by {what}").format(
            recipe=_clean(record.recipe), time=format_time(record.updated), was=was,
            what=cleared_text(record.cleared))
    if state == "gave_up":
        return _("supervision of {recipe} gave up at {time}: {reason}").format(
            recipe=_clean(record.recipe), time=format_time(record.updated),
            reason=reason_text(record.reason))
    return _("{recipe} not supervised since {time}: {reason}").format(
        recipe=_clean(record.recipe), time=format_time(record.updated),
        reason=reason_text(record.reason))


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
    lines += [cleared_line(c) for c in d.cleared]
    if not ending.did_something:
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
