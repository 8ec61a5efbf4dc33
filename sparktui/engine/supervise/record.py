"""What supervision keeps on the nodes, as values: the lease, the state record, the marks.

Everything here is read back from a node, so it is untrusted: every parser takes any
text and gives a value or None, never an exception. Reasons are stored as codes with
their values (``Failure``, ``Reason``), made sentences as codes by ``codes`` and put into
words by the reader (``sparktui.present.supervision``), so every operator reads them in
their language.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field, replace
from typing import Any

from sparktui import untrusted_json
from sparktui.said import Said, Text, kept_json, text_from_json, text_json

HISTORY_KEPT = 50
"""Restarts kept in the record, newest last."""
LOG_LINES_KEPT = 30
"""Log lines of the node that failed, kept when the supervisor gives up."""


def _str(value: Any, default: str = "") -> str:
    return value if isinstance(value, str) else default


def _opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _bounded(value: Any, bound: float) -> int | float | None:
    """A finite number under ``bound`` as it is (an int stays an int), else None. An int
    too large for a float is compared as an int: an answer, never an OverflowError."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    finite = isinstance(value, int) or math.isfinite(value)
    return value if finite and abs(value) < bound else None


def _num(value: Any, default: float = 0.0) -> float:
    """A finite number below 1e10 (seconds: some 300 years), else ``default``."""
    kept = _bounded(value, 1e10)
    return default if kept is None else float(kept)


REASON_BOUND = 1e18
"""A reason's number: seconds, a count, or bytes (a node's memory, 1.3e11 on a Spark)."""


def _finite(value: Any) -> Any:
    """A reason's number under ``REASON_BOUND`` (an int stays an int), else 0; anything
    else as it is."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    kept = _bounded(value, REASON_BOUND)
    return 0 if kept is None else kept


def _object(text: str) -> dict[str, Any] | None:
    try:
        value = untrusted_json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


@dataclass(frozen=True)
class Failure:
    """One thing a check found wrong: ``kind`` is a code (``codes.FailureSaid``); its
    ``detail`` what the node said, or a sentence as data (``timeout``), kept on the nodes
    as its code so that a reader in another language reads it in theirs."""

    kind: str
    node: str
    detail: Text = ""

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "node": self.node, "detail": kept_json(self.detail)}

    @classmethod
    def from_dict(cls, data: Any) -> Failure | None:
        if not isinstance(data, dict):
            return None
        return cls(_str(data.get("kind"), "unknown"), _str(data.get("node"), "-"),
                   text_from_json(data.get("detail")))


@dataclass(frozen=True)
class Reason:
    """Why supervision ended or gave up: a code (``codes.reason_said``) and its values: a
    name, a number, or what a node said as a sentence (a failed serve's ``detail``), kept
    as its code (``kept_json``) and read back as one."""

    code: str
    values: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, **{k: kept_json(v) if isinstance(v, Said) else v
                                      for k, v in self.values.items()}}

    @classmethod
    def from_dict(cls, data: Any) -> Reason | None:
        if not isinstance(data, dict) or not isinstance(data.get("code"), str):
            return None
        values = {k: text_from_json(v) if isinstance(v, dict) else _finite(v)
                  for k, v in data.items()
                  if k != "code" and isinstance(v, str | int | float | dict | type(None))}
        return cls(data["code"], values)


@dataclass(frozen=True)
class Mark:
    """An operator's action written on the nodes before it acts: it disarms supervisors.

    ``action``: ``stop`` (of ``cluster``, of ``recipe`` only when set), ``end`` (supervision
    of them ends, the group stays), ``power_off`` (of the node it is on: every group).
    """

    id: str
    action: str
    cluster: str = ""
    recipe: str | None = None
    by: str = ""
    at: float = 0.0

    def disarms(self, cluster: str, recipe: str) -> bool:
        if self.action == "power_off":
            return True
        return (self.action in ("stop", "end") and self.cluster == cluster
                and self.recipe in (None, recipe))

    def reason(self) -> Reason:
        """Why a supervision it concerns ends (or its give-up is cleared)."""
        return Reason("disarmed", {"action": self.action, "cluster": self.cluster,
                                   "recipe": self.recipe, "by": self.by, "at": self.at})

    def line(self) -> str:
        return json.dumps({"id": self.id, "action": self.action, "cluster": self.cluster,
                           "recipe": self.recipe, "by": self.by, "at": self.at},
                          separators=(",", ":")) + "\n"

    @classmethod
    def parse_lines(cls, text: str) -> list[Mark]:
        marks = []
        for line in text.splitlines():
            data = _object(line)
            if data is None or not isinstance(data.get("id"), str):
                continue
            marks.append(cls(data["id"], _str(data.get("action")), _str(data.get("cluster")),
                             _opt_str(data.get("recipe")), _str(data.get("by")),
                             _num(data.get("at"))))
        return marks


@dataclass(frozen=True)
class Lease:
    """Who supervises the group whose head holds it. Stored as ``TOKEN TTL`` on the first
    line (what the node's shell compares) and this as JSON on the second; the file's age
    on the node's own clock is the heartbeat."""

    token: str
    ttl: int
    holder: str
    cluster: str
    recipe: str
    mode: str = "foreground"  # or "on-node"
    started: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        """Who holds it, for JSON output: its token stays on the head (it is what lets a
        supervisor renew or release the lease)."""
        return {"holder": self.holder, "cluster": self.cluster, "recipe": self.recipe,
                "mode": self.mode, "started": self.started, "ttl": self.ttl}

    def text(self) -> str:
        info = {"holder": self.holder, "cluster": self.cluster, "recipe": self.recipe,
                "mode": self.mode, "started": self.started}
        return f"{self.token} {self.ttl}\n{json.dumps(info, separators=(',', ':'))}\n"

    @classmethod
    def parse(cls, text: str) -> Lease | None:
        first, _, rest = text.strip().partition("\n")
        parts = first.split()
        if len(parts) != 2 or not parts[1].isdecimal():
            return None
        info = _object(rest.strip()) or {}
        return cls(parts[0], int(parts[1]), _str(info.get("holder"), "?"),
                   _str(info.get("cluster")), _str(info.get("recipe")),
                   _str(info.get("mode"), "foreground"), _num(info.get("started")))


@dataclass(frozen=True)
class RestartEvent:
    at: float
    failure: Failure
    ok: bool | None = None  # None: under way
    detail: Text = ""  # why it failed: what a node said, or a sentence as data

    def as_dict(self) -> dict[str, Any]:
        return {"at": self.at, "failure": self.failure.as_dict(), "ok": self.ok,
                "detail": kept_json(self.detail)}

    @classmethod
    def from_dict(cls, data: Any) -> RestartEvent | None:
        if not isinstance(data, dict):
            return None
        failure = Failure.from_dict(data.get("failure"))
        ok = data.get("ok")
        if failure is None:
            return None
        return cls(_num(data.get("at")), failure, ok if isinstance(ok, bool) else None,
                   text_from_json(data.get("detail")))


@dataclass(frozen=True)
class Record:
    """The supervision of one group as its supervisor last wrote it on the head.

    ``status``: watching, restarting, memory (waiting for it before a restart), backoff,
    waiting, gave_up, disarmed, ended. ``cleared``: what made a supervision that gave up,
    or whose supervisor was lost, history (an operator's stop, end or power off, or a new
    serve of the recipe); the record is then read as ended.
    """

    cluster: str
    recipe: str
    holder: str
    mode: str
    status: str
    interval: float
    window: float
    max_restarts: int
    since: float
    updated: float
    restarts: tuple[RestartEvent, ...] = ()
    reason: Reason | None = None
    last_lines: tuple[str, ...] = ()
    last_lines_node: str | None = None
    healthy_since: float | None = None  # None: not healthy since its last failure
    cleared: Reason | None = None

    def restarts_within(self, now: float) -> int:
        return sum(1 for r in self.restarts if r.at > now - self.window)

    @property
    def last_restart(self) -> RestartEvent | None:
        return self.restarts[-1] if self.restarts else None

    def as_dict(self) -> dict[str, Any]:
        return {"cluster": self.cluster, "recipe": self.recipe, "holder": self.holder,
                "mode": self.mode, "status": self.status, "interval": self.interval,
                "window": self.window, "max_restarts": self.max_restarts,
                "since": self.since, "updated": self.updated,
                "restarts": [r.as_dict() for r in self.restarts],
                "reason": self.reason.as_dict() if self.reason else None,
                "last_lines": list(self.last_lines), "last_lines_node": self.last_lines_node,
                "healthy_since": self.healthy_since,
                "cleared": self.cleared.as_dict() if self.cleared else None}

    def text(self) -> str:
        return json.dumps(self.as_dict(), separators=(",", ":")) + "\n"

    @classmethod
    def parse(cls, text: str) -> Record | None:
        data = _object(text.strip())
        if data is None:
            return None
        items = data.get("restarts")
        restarts = [RestartEvent.from_dict(r) for r in items] if isinstance(items, list) else []
        lines = data.get("last_lines")
        return cls(
            _str(data.get("cluster")), _str(data.get("recipe")), _str(data.get("holder"), "?"),
            _str(data.get("mode"), "foreground"), _str(data.get("status"), "unknown"),
            _num(data.get("interval")), _num(data.get("window")),
            int(_num(data.get("max_restarts"))), _num(data.get("since")),
            _num(data.get("updated")),
            tuple(r for r in restarts if r is not None)[-HISTORY_KEPT:],
            Reason.from_dict(data.get("reason")),
            tuple(x for x in lines if isinstance(x, str))[-LOG_LINES_KEPT:]
            if isinstance(lines, list) else (),
            _opt_str(data.get("last_lines_node")),
            _num(data.get("healthy_since"), -1.0) if data.get("healthy_since") is not None
            else None,
            Reason.from_dict(data.get("cleared")))


@dataclass(frozen=True)
class SupervisionStatus:
    """What ``health`` shows of supervision: read from the cluster's head (rank 0).

    ``lease_age``: seconds since the heartbeat, on the head's clock.
    """

    node: str
    lease: Lease | None = None
    lease_age: float | None = None
    record: Record | None = None
    error: Text | None = None  # the head could not be read: unknown (why, as data)
    digest: str | None = None  # of the record's text as read: a change since is seen

    @property
    def active(self) -> bool:
        """A supervisor holds the lease and its heartbeat is fresh."""
        return (self.lease is not None and self.lease_age is not None
                and self.lease_age < self.lease.ttl)

    @property
    def held_by(self) -> Lease | None:
        """The lease of the supervisor that holds the group now: a second one is refused
        (the CLI, the dashboard and the on-node install ask this same question)."""
        return self.lease if self.error is None and self.active else None

    @property
    def state(self) -> str:
        """supervised, lost (a lease without heartbeat), the record's last status (ended
        once it was cleared), none or unknown."""
        if self.error is not None:
            return "unknown"
        if self.active:
            return "supervised"
        if self.lease is not None:
            return "lost"
        if self.record is None:
            return "none"
        return "ended" if self.record.cleared is not None else self.record.status

    @property
    def current(self) -> bool:
        """Supervision that is, or alerts, now: supervised, lost, gave up, or unknown. An
        ended one is history: ``health`` and the head's details show it, a confirmation
        of a stop (or power, restart) does not."""
        return self.state in ("supervised", "lost", "gave_up", "unknown")

    def of(self, cluster: str) -> SupervisionStatus:
        """Only what concerns ``cluster``: a head shared by two clusters (or a home shared
        by two nodes, as a local node's and a test bed's) keeps one lease and one record,
        and another cluster's are not this one's."""
        lease = self.lease if self.lease is not None and self.lease.cluster == cluster else None
        record = (self.record if self.record is not None and self.record.cluster == cluster
                  else None)
        return replace(self, lease=lease, lease_age=self.lease_age if lease else None,
                       record=record, digest=self.digest if record else None)

    def as_dict(self) -> dict[str, Any]:
        lease = self.lease
        return {"node": self.node, "state": self.state, "active": self.active,
                "status": self.record.status if self.record else None,
                "error": text_json(self.error), "heartbeat_age": self.lease_age,
                "holder": lease.holder if lease else None,
                "mode": lease.mode if lease else None,
                "recipe": lease.recipe if lease else (self.record.recipe if self.record
                                                      else None),
                "record": self.record.as_dict() if self.record else None}


LEASE_MARKER = "@@sparktui-lease"
STATE_MARKER = "@@sparktui-state"


def parse_status(node: str, text: str) -> SupervisionStatus:
    """The output of ``shell.read_status``: a ``LEASE_MARKER AGE`` line and the lease, a
    ``STATE_MARKER`` line and the record (one line of JSON)."""
    sections: dict[str, tuple[str, list[str]]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        words = line.split()
        if words and words[0] in (LEASE_MARKER, STATE_MARKER):
            current = []
            sections[words[0]] = (words[1] if len(words) > 1 else "", current)
        elif current is not None:
            current.append(line)
    lease = record = None
    age: float | None = None
    if LEASE_MARKER in sections:
        age_text, body = sections[LEASE_MARKER]
        lease = Lease.parse("\n".join(body))
        age = float(age_text) if age_text.lstrip("-").isdecimal() else None
        if age is None:
            lease = None
    digest = None
    if STATE_MARKER in sections:
        text = "\n".join(sections[STATE_MARKER][1]) + "\n"  # the file, as written
        record = Record.parse(text)
        digest = hashlib.sha256(text.encode()).hexdigest() if record is not None else None
    return SupervisionStatus(node, lease, age, record, digest=digest)
