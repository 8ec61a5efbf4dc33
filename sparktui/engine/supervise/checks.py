"""The tiers of one check of a supervised group, every node at once.

1. Members: every container of the group (the engine's nodes, the critical services)
   runs, and is the one the supervisor last saw start (docker's StartedAt and restart
   count): none exited, none restarted behind its back.
2. The head's API: ``/health`` and ``/v1/models`` answer 200 within the health timeout.
3. A stall: requests wait and no token is generated for ``telemetry_stall_seconds``.

Each member node is read once per check: the listings a driver reads without the shell
(docker's through its API), then one command with the other runtimes' listing and the
node's marks (``shell.read_marks``). The marks are read after the listing, so a stop that
was written there before its containers went is seen by the check that sees them gone.
(Where the API cannot answer, the one command lists docker's too, through its CLI, before
the marks.)
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from sparktui.engine.deadline import within
from sparktui.engine.drivers import driver_for
from sparktui.engine.remote.http import http_get
from sparktui.engine.remote.node_error import Reason
from sparktui.engine.remote.transport import NodeError, Transport
from sparktui.engine.status import Workload
from sparktui.engine.supervise import shell
from sparktui.engine.supervise.policy import StallWatch
from sparktui.engine.supervise.record import LOG_LINES_KEPT, Failure, Mark
from sparktui.engine.telemetry import metrics
from sparktui.engine.workloads.discover import (
    Direct,
    Discovery,
    direct_listings,
    disown_image_runs,
    listing_command,
    parse_rest,
)
from sparktui.plan.model import LaunchPlan
from sparktui.said import Layout, Text, joined, said

MARKS_MARKER = "@@sparktui-marks@@"


def look_command(direct: Direct) -> str:
    """The listing of what ``direct`` lacks, then the node's marks."""
    return f"{listing_command(direct)}; echo {MARKS_MARKER}; {shell.read_marks()}"


@dataclass(frozen=True)
class Member:
    """A container of the group: where it runs, and how it looked when it started."""

    node: str
    container: str


@dataclass(frozen=True)
class NodeLook:
    node: str
    workloads: list[Workload] | None = None  # None: unknown (see ``error``)
    marks: list[Mark] | None = None
    error: Text | None = None  # why unknown, as data (``timeout``), never words


@dataclass(frozen=True)
class Check:
    failures: list[Failure]
    looks: dict[str, NodeLook] = field(default_factory=dict)

    @property
    def marks(self) -> dict[str, list[Mark]]:
        return {n: look.marks for n, look in self.looks.items() if look.marks is not None}


Started = dict[Member, tuple[str | None, int]]
"""Each member's (StartedAt, restart count) when the supervisor last saw the group start."""


def members(plan: LaunchPlan) -> list[Member]:
    found = [Member(n.name, n.container) for n in plan.nodes]
    for service in plan.services:
        if service.critical and not service.terminal:
            found += [Member(i.node, i.container) for i in service.instances]
    return found


def parse_look(node: str, output: str, direct: Direct | None = None) -> NodeLook:
    """``look_command(direct)``'s output, read with the listings of ``direct``."""
    listing, found, marks = output.partition(MARKS_MARKER)
    discovered = parse_rest(node, direct or {}, listing)
    if discovered.docker_error is not None:
        return NodeLook(node, None, Mark.parse_lines(marks) if found else None,
                        joined(Layout.COLON, said(Reason.DOCKER_UNREACHABLE),
                               discovered.docker_error))
    return NodeLook(node, discovered.workloads, Mark.parse_lines(marks) if found else [])


async def look(t: Transport, timeout: float) -> NodeLook:
    async def listing_then_marks() -> NodeLook:
        direct = await direct_listings(t, timeout)
        result = await t.run(look_command(direct), timeout=timeout)
        seen = parse_look(t.node.name, result.stdout, direct)
        if seen.workloads is None:
            return seen
        checked = await disown_image_runs(t, Discovery(seen.workloads), timeout)
        return replace(seen, workloads=checked.workloads)

    try:
        return await within(listing_then_marks(), timeout)
    except NodeError as exc:
        return NodeLook(t.node.name, error=exc.said)
    except TimeoutError:
        return NodeLook(t.node.name, error=said(Reason.TIMEOUT))


def started_of(group: list[Member], looks: Mapping[str, NodeLook]) -> Started:
    """What each running member looks like now: the baseline after a (re)start."""
    seen: Started = {}
    for member in group:
        w = _find(looks.get(member.node), member)
        if w is not None and w.running:
            seen[member] = (w.started_at, w.restarts)
    return seen


def member_failures(group: list[Member], looks: Mapping[str, NodeLook],
                    started: Started) -> list[Failure]:
    failures = []
    for member in group:
        node_look = looks.get(member.node)
        if node_look is None or node_look.workloads is None:
            error = node_look.error if node_look is not None else None
            failures.append(Failure("unreachable", member.node, error or ""))
            continue
        w = _find(node_look, member)
        if w is None:
            failures.append(Failure("missing", member.node, member.container))
        elif not w.running:
            failures.append(Failure("not_running", member.node, w.status or w.state))
        elif member in started and started[member] != (w.started_at, w.restarts):
            failures.append(Failure("restarted", member.node, w.started_at or ""))
    return list(dict.fromkeys(failures))  # a node down once, not once per member


def _find(node_look: NodeLook | None, member: Member) -> Workload | None:
    if node_look is None or node_look.workloads is None:
        return None
    # A foreign workload of the member's name is not the member: never restarted for it.
    return next((w for w in node_look.workloads if w.ours and w.name == member.container),
                None)


async def api_failures(t: Transport, plan: LaunchPlan, timeout: float,
                       stall: StallWatch) -> list[Failure]:
    head = plan.head

    async def get(path: str):
        try:
            return await http_get(t, head.ssh_ip, plan.port, path, timeout)
        except Exception as exc:  # refused, timed out, a channel error: not answering
            return exc

    health, models, scrape = await asyncio.gather(get("/health"), get("/v1/models"),
                                                  get("/metrics"))
    failures = []
    for kind, answer in (("health", health), ("models", models)):
        if isinstance(answer, BaseException) or answer.status != 200:
            failures.append(Failure(kind, head.name, _why(answer)))
    if failures or isinstance(scrape, BaseException) or scrape.status != 200:
        stall.reset()
        return failures
    try:
        snap = metrics.snapshot(scrape.body, time.monotonic())
    except ValueError:
        return failures
    stalled = stall.update(snap.t, snap.waiting, snap.generation_tokens)
    if stalled is not None:
        failures.append(Failure("stalled", head.name, f"{stalled:.0f}"))
    return failures


def _why(answer: object) -> Text:
    if isinstance(answer, TimeoutError):
        return said(Reason.TIMEOUT)
    if isinstance(answer, BaseException):
        return str(answer) or type(answer).__name__
    return f"HTTP {getattr(answer, 'status', '?')}"


async def check(plan: LaunchPlan, transports: Mapping[str, Transport], group: list[Member],
                started: Started, stall: StallWatch, timeout: float,
                marks_from: list[str]) -> Check:
    """One check of every tier; ``marks_from``: every node whose marks to read."""
    names = list(dict.fromkeys([m.node for m in group] + marks_from))
    looks_job = asyncio.gather(*(look(transports[n], timeout) for n in names))
    api_job = api_failures(transports[plan.head.name], plan, timeout, stall)
    found, api = await asyncio.gather(looks_job, api_job)
    looks = {n.node: n for n in found}
    return Check(member_failures(group, looks, started) + api, looks)


def has_container(node_look: NodeLook | None, container: str) -> bool:
    """The node said what it runs, and ``container`` is among it."""
    return (node_look is not None and node_look.workloads is not None
            and any(w.name == container for w in node_look.workloads))


async def member_lines(plan: LaunchPlan, transports: Mapping[str, Transport],
                       group: list[Member], node: str) -> tuple[str, ...]:
    """The last lines of the group's member on ``node`` (kept with a failure); none
    when it has none there or the node does not answer."""
    member = next((m for m in group if m.node == node), None)
    if member is None:
        return ()
    try:
        text = await driver_for(plan.runtime).last_lines(transports[node], member.container,
                                                         LOG_LINES_KEPT)
    except NodeError:
        return ()
    return tuple(text.splitlines()[-LOG_LINES_KEPT:])
