"""The node's Docker engine API, for the reads every refresh makes: the listing of
sparktui's containers and one container's state (and, for each serve, the image's ID).

The API is reached through the SSH connection's stream-local forwarding, at the socket
the node's docker CLI talks to (``ENDPOINT``, asked once per transport). A
read that way starts no process on the node; through the CLI a listing costs two Go
client starts (``docker ps``, then ``docker inspect``), about 30 ms of CPU each.

What this path cannot answer (forwarding refused, a daemon that is down, a socket the
user may not open, an answer it cannot read, an endpoint that is not a Unix socket) is
asked of the CLI again, whose answers and errors are the ones people know: a failure here
is never read as nothing there. Only a timeout is an answer: a daemon that hangs would
hang the CLI too.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable
from typing import TypeVar

from sparktui.engine.remote.http import DOCKER_BODY, HttpAnswer, unix_get
from sparktui.engine.remote.transport import NodeError, Reason, Transport
from sparktui.plan.image_pin import repo_digests_in_inspect
from sparktui.plan.runtime.base import MISSING, Found, Listing, State
from sparktui.plan.runtime.docker import (
    API_LIST,
    ENDPOINT,
    api_ids,
    api_image,
    api_image_id,
    api_inspect,
    api_state,
    found_in_inspect,
    image_labels_command,
    image_run_label,
    parse_image_labels,
    socket_path,
)

INSPECTS_AT_ONCE = 3
"""Inspects in flight per listing, so that a health check (the listing, the tmux
listing, the heads' three probes) stays within one SSH connection's channels."""

_T = TypeVar("_T")
_sockets: weakref.WeakKeyDictionary[Transport, str | None] = weakref.WeakKeyDictionary()


class _NoAnswer(Exception):
    """The API could not answer this read: the CLI is asked."""


async def docker_listing(t: Transport, timeout: float | None = None) -> Listing | None:
    """sparktui's containers on the node; None: ask the CLI (``Docker.list_command``).
    NodeError when the node does not answer in time."""
    async def read(socket: str, limit: float) -> Listing:
        ids = api_ids(_ok(await _get(t, socket, API_LIST, limit)).body)
        gate = asyncio.Semaphore(INSPECTS_AT_ONCE)

        async def inspect(container: str) -> Found | None:
            async with gate:
                answer = await _get(t, socket, api_inspect(container), limit)
            if answer.status == 404:  # removed since the list: as ``docker inspect``
                return None
            return found_in_inspect(_ok(answer).body)  # None: it names no container

        found = await asyncio.gather(*(inspect(i) for i in ids))
        return Listing([f for f in found if f is not None])

    return await _read(t, timeout, read)


async def docker_state(t: Transport, name: str, timeout: float | None = None
                       ) -> State | None:
    """The container's state (MISSING when the daemon has none of that name); None: ask
    the CLI (``Docker.state_command``)."""
    async def read(socket: str, limit: float) -> State:
        answer = await _get(t, socket, api_inspect(name), limit)
        return State(MISSING) if answer.status == 404 else api_state(_ok(answer).body)

    return await _read(t, timeout, read)


async def docker_image_id(t: Transport, image: str, timeout: float | None = None
                          ) -> str | None:
    """The ID of ``image`` on the node; None: ask the CLI (``image_id_command``), which
    also says in its own words why an image is not there."""
    async def read(socket: str, limit: float) -> str:
        return api_image_id(_ok(await _get(t, socket, api_image(image), limit)).body)

    return await _read(t, timeout, read)


async def docker_repo_digests(t: Transport, image: str, timeout: float | None = None
                              ) -> list[str] | None:
    """The image's RepoDigests on the node; None: ask the CLI (``repo_digests_command``),
    which also says in its own words why an image is not there."""
    async def read(socket: str, limit: float) -> list[str]:
        return repo_digests_in_inspect(_ok(await _get(t, socket, api_image(image), limit)).body)

    return await _read(t, timeout, read)


async def image_run_labels(t: Transport, image_ids: list[str],
                           timeout: float | None = None) -> dict[str, str | None]:
    """Each image's own ``sparktui.run`` label (None: it has none), by ID: through the
    API, else in one ``docker image inspect`` of them all. An image neither can read is
    left out. NodeError when the node does not answer in time."""
    async def read(socket: str, limit: float) -> dict[str, str | None]:
        gate = asyncio.Semaphore(INSPECTS_AT_ONCE)

        async def label(image_id: str) -> tuple[str, str | None]:
            async with gate:
                answer = await _get(t, socket, api_image(image_id), limit)
            return image_id, image_run_label(_ok(answer).body)

        return dict(await asyncio.gather(*map(label, image_ids)))

    found = await _read(t, timeout, read)
    if found is None:
        result = await t.run(image_labels_command(image_ids), timeout=timeout)
        found = parse_image_labels(result.stdout)
    return found


async def _read(t: Transport, timeout: float | None,
                read: Callable[[str, float], Awaitable[_T]]) -> _T | None:
    """``read(socket, limit)`` through the node's socket; None where it cannot answer
    (no socket, or an answer it cannot take: the CLI is asked)."""
    limit = timeout or t.command_timeout
    socket = await _socket(t, limit)
    if socket is None:
        return None
    try:
        return await read(socket, limit)
    except (_NoAnswer, ValueError, KeyError, TypeError, AttributeError):
        return None


async def docker_socket(t: Transport, timeout: float | None = None) -> str | None:
    """The node's Docker API socket (None: a Unix socket the CLI's endpoint is not), for a
    read or a stream of one's own (``sparktui pull``'s registry pull)."""
    return await _socket(t, timeout or t.command_timeout)


async def _socket(t: Transport, timeout: float) -> str | None:
    if t in _sockets:
        return _sockets[t]
    result = await t.run(ENDPOINT, timeout=timeout)
    _sockets[t] = path = socket_path(result.stdout) if result.ok else None
    return path


async def _get(t: Transport, socket: str, path: str, timeout: float) -> HttpAnswer:
    try:
        return await unix_get(t, socket, path, timeout, limit=DOCKER_BODY)
    except TimeoutError:
        raise NodeError(t.node.name, Reason.TIMEOUT,
                        f"{timeout:g} s: docker API GET {path[:60]}") from None
    except Exception as exc:  # refused forwarding, no daemon, no permission: the CLI says
        raise _NoAnswer(str(exc)) from exc


def _ok(answer: HttpAnswer) -> HttpAnswer:
    if answer.status != 200:
        raise _NoAnswer(f"HTTP {answer.status}")
    return answer
