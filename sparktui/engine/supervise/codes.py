"""Supervision's sentences as codes: a failure, an operator's mark, why a supervision
ended, what cleared it, a node short of memory, what the supervisor tells whoever runs
it (``sparktui.said``).

The nodes keep the codes (``record``); these make them ``Said`` values, whose words are
made when shown: the supervisor's events and the actions' progress carry them, and the
front-ends' lines (``sparktui.present.supervision``) are made of them. Every value here
was read from a node or a container: ``_clean`` keeps each one on one line and free of
control characters wherever it is printed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from sparktui.engine.supervise.outcomes import Cleared, Short
from sparktui.engine.supervise.policy import Policy
from sparktui.engine.supervise.record import Failure, Lease, Mark, Reason
from sparktui.fmt import format_time
from sparktui.i18n import N_, N_plural
from sparktui.labels import step_said
from sparktui.said import Code, Duration, Items, Layout, Param, Said, Size, Text, joined, said
from sparktui.visible import shorten, visible


class FailureSaid(Code):
    """A failed check, by its kind (``Failure.kind``)."""

    MISSING = N_("{node}: its container {detail} is gone")
    NOT_RUNNING = N_("{node}: its container is {detail}")
    RESTARTED = N_("{node}: its container was restarted outside sparktui ({detail})")
    UNREACHABLE = N_("{node}: unreachable ({detail})")
    HEALTH = N_("{node}: /health does not answer ({detail})")
    MODELS = N_("{node}: /v1/models does not answer ({detail})")
    SERVE = N_("{node}: serve failed ({detail})")
    STALLED = N_("{node}: no token generated for {detail} s while requests wait")
    TIME_LIMIT = N_("{node}: its Slurm job {detail} reached its time limit")


class OtherFailureSaid(Code):
    """A failure of a kind this version does not know (a newer supervisor wrote it): its
    kind is shown as the code it is, among words of this version's."""

    KIND = N_("{node}: {kind} ({detail})")


class MarkSaid(Code):
    """An operator's action, as the mark it left on the nodes says it."""

    POWER_OFF = N_("power off by {by} at {at}")
    END_OF_RECIPE = N_("end of supervision of {recipe} on {cluster} by {by} at {at}")
    END = N_("end of supervision on {cluster} by {by} at {at}")
    STOP_OF_RECIPE = N_("stop of {recipe} on {cluster} by {by} at {at}")
    STOP = N_("stop of {cluster} by {by} at {at}")


class EndSaid(Code):
    """Why a supervision ended (``Reason.code``)."""

    NEVER_HEALTHY = N_("the group never became healthy under supervision: it is not "
                       "restarted")
    TOO_MANY_RESTARTS = N_plural("{n} restart in the last {window}",
                                 "{n} restarts in the last {window}")
    SERVE_FAILED = N_("serve failed on {node} at {step}: {detail}")
    DISARMED = N_("{what}: supervision ends, nothing is restarted")
    INTERRUPTED_RESTART = N_("the supervisor was interrupted during a restart; the group is "
                             "as the restart's steps left it")
    INTERRUPTED_UNCHECKED = N_("the supervisor was interrupted; the group is left as it is "
                               "(its last check did not pass)")
    INTERRUPTED = N_("the supervisor was interrupted; the group keeps running")
    MEMORY_NOT_RECLAIMED = N_("memory not reclaimed on {node}: reboot it ({available} "
                              "available of the {needed} {recipe} needs, {seconds:g} s after "
                              "its stop)")
    LEASE_LOST = N_("another supervisor took over: {holder}")
    WHERE_UNKNOWN = N_("Slurm could not say which nodes the group's job holds, so nothing "
                       "was watched or restarted: {detail}")


class ClearedSaid(Code):
    """What made a supervision history, and the clearing of it on a head."""

    SERVED = N_("serve of {recipe} by {by} at {at}")
    GAVE_UP = N_("the give-up of {recipe}'s supervision is history now")
    LOST = N_("the lost supervisor {holder} is history now")


class ShortSaid(Code):
    SHORT = N_("{node}: {available} available of the {needed} {recipe} needs")


class DisarmSaid(Code):
    """A mark's wait for the supervisor it ends (``disarm``)."""

    UNTIL_ENDS = N_("until the supervisor {holder} ends")
    ENDED = N_("the supervisor {holder} ended")
    STILL_RUNNING = N_("the supervisor {holder} is still running; it reads the mark before "
                       "any restart")


class SuperviseSaid(Code):
    """The supervisor's events (``events.SuperviseEvent.text``), as it goes."""

    REFUSED = N_("{recipe} on {cluster} is supervised already: {holder} ({mode})")
    ARMED = N_plural("supervising {recipe} on {cluster}: every {seconds:g} s, at most {n} "
                     "restart in {window:g} s", "supervising {recipe} on {cluster}: every "
                     "{seconds:g} s, at most {n} restarts in {window:g} s")
    HEALTHY = N_("healthy")
    WAITING_FOR = N_("waiting for {nodes}")
    ADOPTED = N_("the group runs: watching it as it is")
    NOT_WHOLE = N_("the group is not whole: stopping it, then serving it again")
    NOT_RUNNING = N_("the group is not running: serving it")
    BACKOFF = N_("waiting {seconds:g} s before the next restart")
    RESTARTING = N_("restarting the whole group: {reason}")
    RESTARTED = N_("the group is serving again")
    RESTART_FAILED = N_("the restart failed: {detail}")
    MEMORY_WAIT = N_("waiting for memory to come back: {nodes}")
    GAVE_UP = N_("gave up on {recipe} ({cluster}): {reason}; the group is left as it is")


def _seconds(value: Any) -> float:
    """A number a node wrote; anything else (a word, infinity) is 0."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return 0.0


def _clean(value: Any) -> str:
    return shorten(visible(str(value)), 300)


def _text(value: Any) -> Text:
    """A reason's sentence (``Reason.from_dict`` read it back as one), or its text; a
    number or nothing where a node should have said something, as text."""
    return value if isinstance(value, str | Said) else str(value or "")


def _cleaned(value: Text) -> Text:
    """``_clean`` on text, and on each text value of a sentence (kept a sentence: its words
    are made when shown); one line: a sentence of lines (``Layout.LINES``: a node may keep
    one) is its first."""
    cleaned = _one_line(value)
    return cleaned if isinstance(cleaned, str | Said) else _clean(cleaned)


def _one_line(value: Param) -> Param:
    if isinstance(value, Said):
        if value.code is Layout.LINES:
            return _one_line(value.params.get("head", ""))
        return Said(value.code, {k: _one_line(v) for k, v in value.params.items()})
    if isinstance(value, Items):
        return Items([_one_line(v) for v in value.items], value.sep)
    if isinstance(value, list | tuple):
        return [_one_line(v) for v in value]
    return _clean(value) if isinstance(value, str) else value


def failure_said(failure: Failure) -> Said:
    node, detail = _clean(failure.node), _cleaned(failure.detail)
    code = FailureSaid.__members__.get(failure.kind.upper())
    if code is None:
        return said(OtherFailureSaid.KIND, node=node, kind=_clean(failure.kind), detail=detail)
    return said(code, node=node, detail=detail)


def mark_said(mark: Mark) -> Said:
    """``stop of toy on 2nodes by ops@laptop at 14:03:22``."""
    values: dict[str, Any] = {"by": _clean(mark.by or "?"),
                              "at": format_time(mark.at) if mark.at else "?"}
    if mark.action == "power_off":
        return said(MarkSaid.POWER_OFF, **values)
    values["cluster"] = _clean(mark.cluster)
    if mark.action == "end":
        return said(MarkSaid.END_OF_RECIPE, recipe=_clean(mark.recipe), **values) \
            if mark.recipe else said(MarkSaid.END, **values)
    return said(MarkSaid.STOP_OF_RECIPE, recipe=_clean(mark.recipe), **values) \
        if mark.recipe else said(MarkSaid.STOP, **values)


def _mark(v: dict[str, Any]) -> Mark:
    return Mark("", str(v.get("action") or ""), str(v.get("cluster") or ""),
                v.get("recipe") if isinstance(v.get("recipe"), str) else None,
                str(v.get("by") or ""), _seconds(v.get("at")))


def _interrupted(v: dict[str, Any]) -> Said:
    """The group as the supervisor last saw it."""
    group = str(v.get("group"))
    return said(EndSaid.INTERRUPTED_RESTART if group == "restart" else
                EndSaid.INTERRUPTED_UNCHECKED if group == "unchecked" else
                EndSaid.INTERRUPTED)


def reason_said(reason: Reason | None) -> Text:
    """Why a supervision ended; a code this version does not know (or whose values do
    not read), as it is."""
    if reason is None:
        return "-"
    v = reason.values
    match reason.code:
        case "never_healthy":
            return said(EndSaid.NEVER_HEALTHY)
        case "too_many_restarts" if isinstance(v.get("restarts"), int):
            return said(EndSaid.TOO_MANY_RESTARTS, n=v["restarts"],
                        window=Duration(_seconds(v.get("window"))))
        case "serve_failed":
            return said(EndSaid.SERVE_FAILED, node=_clean(v.get("node") or "-"),
                        step=step_said(_clean(v.get("step") or "-")),
                        detail=_cleaned(_text(v.get("detail"))))
        case "disarmed":
            return said(EndSaid.DISARMED, what=mark_said(_mark(v)))
        case "interrupted":
            return _interrupted(v)
        case "memory_not_reclaimed":
            return said(EndSaid.MEMORY_NOT_RECLAIMED, node=_clean(v.get("node") or "?"),
                        available=Size(_seconds(v.get("available"))),
                        needed=Size(_seconds(v.get("needed"))),
                        recipe=_clean(v.get("recipe") or "?"), seconds=_seconds(v.get("waited")))
        case "lease_lost":
            return said(EndSaid.LEASE_LOST, holder=_clean(v.get("holder") or "?"))
        case "where_unknown":
            return said(EndSaid.WHERE_UNKNOWN, detail=_cleaned(_text(v.get("detail"))))
    return _clean(reason.code)


def apart(items: Sequence[Text]) -> Text:
    """Sentences one after another, apart by "; " (``items`` is not empty)."""
    if len(items) == 1:
        return items[0]
    return joined(Layout.SEMICOLON, items[0], apart(items[1:]))


def first_line(text: Text) -> Text:
    """What a failed serve said, its first line (its sentence, not the log lines below)."""
    if isinstance(text, Said):
        head = text.params.get("head")
        return first_line(head) if text.code is Layout.LINES and isinstance(head, str | Said) \
            else text
    return text.split("\n")[0][:300]


def failures_said(failures: Sequence[Failure]) -> Text:
    """``node2: unreachable (timeout); node3: ...``."""
    return apart([failure_said(f) for f in failures])


def refused_said(holder: Lease) -> Said:
    return said(SuperviseSaid.REFUSED, recipe=_clean(holder.recipe or "?"),
                cluster=_clean(holder.cluster or "?"), holder=_clean(holder.holder),
                mode=_clean(holder.mode))


def armed_said(recipe: str, cluster: str, policy: Policy) -> Said:
    """``supervising toy on test: every 10 s, at most 2 restarts in 600 s``."""
    return said(SuperviseSaid.ARMED, recipe=recipe, cluster=cluster, seconds=policy.interval,
                n=policy.max_restarts, window=policy.window)


def short_said(short: Short, recipe: str) -> Said:
    """``spark2: 12.0 GiB available of the 96.0 GiB toy needs``."""
    return said(ShortSaid.SHORT, node=_clean(short.node), available=Size(short.available),
                needed=Size(short.needed), recipe=_clean(recipe))


def cleared_said(reason: Reason) -> Text:
    """What made a supervision history: ``stop of test by ops@laptop at 14:03:22``."""
    v = reason.values
    if reason.code == "served":
        return said(ClearedSaid.SERVED, recipe=_clean(v.get("recipe") or "?"),
                    by=_clean(v.get("by") or "?"), at=format_time(_seconds(v.get("at"))))
    if reason.code == "disarmed":
        return mark_said(_mark(v))
    return reason_said(reason)


def clearing_said(cleared: Cleared) -> Said:
    """A clearing on a head, as its progress step says it."""
    record, lease = cleared.record, cleared.lease
    if record is not None and record.status == "gave_up":
        return said(ClearedSaid.GAVE_UP, recipe=_clean(record.recipe))
    holder = lease.holder if lease is not None else record.holder if record else "?"
    return said(ClearedSaid.LOST, holder=_clean(holder))
