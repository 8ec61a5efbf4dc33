"""Supervision's files on the nodes, read and written over a node's transport."""

from __future__ import annotations

import asyncio
import getpass
import os
import socket
import time
import uuid
from collections.abc import Iterable

from sparktui.engine.deadline import within
from sparktui.engine.remote.transport import NodeError, Reason, Transport
from sparktui.engine.supervise import shell
from sparktui.engine.supervise.record import Lease, Mark, Record, SupervisionStatus, parse_status
from sparktui.said import said


def who() -> str:
    """``user@host`` of this process: what a mark or a lease says about its writer."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = str(os.getuid())
    return f"{user}@{socket.gethostname()}"


def new_mark(action: str, cluster: str = "", recipe: str | None = None) -> Mark:
    return Mark(uuid.uuid4().hex, action, cluster, recipe, who(), time.time())


async def write_marks(transports: Iterable[Transport], mark: Mark,
                      timeout: float | None = None) -> list[str]:
    """Put ``mark`` on every node that answers; the names of those that did not.

    A node that cannot take it is not an error here: the action that follows reports
    that node, and the supervisor reads the mark from every other node."""
    async def one(t: Transport) -> str | None:
        try:
            result = await t.run(shell.append_mark(), stdin=mark.line(), timeout=timeout)
        except NodeError:
            return t.node.name
        return None if result.ok else t.node.name

    missed = await asyncio.gather(*(one(t) for t in transports))
    return [name for name in missed if name is not None]


async def read_marks(t: Transport, timeout: float | None = None) -> list[Mark]:
    """The node's marks; NodeError when it cannot tell."""
    return Mark.parse_lines((await t.run(shell.read_marks(), timeout=timeout)).stdout)


async def acquire(t: Transport, lease: Lease) -> Lease | None:
    """Take the lease on the head: None when taken, else the live holder's lease.

    Raises NodeError when the head cannot be reached or gives an answer it cannot be
    trusted with (then nobody holds it for us)."""
    result = await t.run(shell.acquire(lease.token, lease.ttl), stdin=lease.text())
    first, _, rest = result.stdout.partition("\n")
    if first.strip() == "taken":
        return None
    if first.startswith("held"):
        return Lease.parse(rest) or Lease("?", lease.ttl, "?", "", "")
    raise NodeError(t.node.name, Reason.SSH_ERROR, (result.stderr or result.stdout).strip()[:200])


async def renew(t: Transport, token: str) -> Lease | bool | None:
    """True: renewed. A lease (or None when unreadable): it was lost to that holder."""
    result = await t.run(shell.renew(token))
    first, _, rest = result.stdout.partition("\n")
    if first.strip() == "ok":
        return True
    if first.strip() == "lost":
        return Lease.parse(rest)
    raise NodeError(t.node.name, Reason.SSH_ERROR, (result.stderr or result.stdout).strip()[:200])


async def heartbeat(t: Transport, token: str, every: float) -> Lease | None:
    """Renew the lease every ``every`` seconds until it is lost: to whom (None: unreadable)."""
    while True:
        await asyncio.sleep(every)
        try:
            renewed = await renew(t, token)
        except NodeError:
            continue  # the head does not answer: the lease may lapse, it is not lost yet
        if renewed is not True:
            return renewed if isinstance(renewed, Lease) else None


async def release(t: Transport, token: str) -> None:
    await t.run(shell.release(token))


async def write_record(t: Transport, record: Record) -> None:
    await t.run(shell.write_state(), stdin=record.text())


async def read_status(t: Transport, timeout: float) -> SupervisionStatus:
    """Supervision as the head keeps it; an unreadable head is ``error``, not "none"."""
    try:
        result = await within(t.run(shell.read_status(), timeout=timeout), timeout)
    except NodeError as exc:
        return SupervisionStatus(t.node.name, error=exc.said)
    except TimeoutError:
        return SupervisionStatus(t.node.name, error=said(Reason.TIMEOUT))
    return parse_status(t.node.name, result.stdout)
