"""A small HTTP/1.0 client (GET; POST for the deep check) over any stream pair, so the
head's API is reached through the SSH connection (direct-tcpip) exactly as it is locally,
and the node's Docker engine through its Unix socket (stream-local forwarding).

An answer is read up to a limit (``limit``: ``MAX_BODY`` unless the caller names one,
e.g. ``METRICS_BODY`` for /metrics) and within ``timeout`` as a whole: a node that never
ends its answer, or sends a 100 MB one, gets ``AnswerTooLarge`` (that node's error), and
sparktui's memory holds at most the limit."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sparktui.engine.deadline import within
from sparktui.engine.remote.bounded import TooLarge, read_bounded
from sparktui.engine.remote.transport import Transport
from sparktui.i18n import N_
from sparktui.said import Code, Said, Size, said

MAX_BODY = 4 << 20
"""An answer's limit unless the caller names one: /v1/models, /health, a Docker inspect."""
METRICS_BODY = 16 << 20
"""/metrics and the exporters': many series, histograms per model."""
DOCKER_BODY = 16 << 20
"""The Docker engine's container list: a few kB per container, for thousands of them."""
HEAD_ROOM = 64 << 10
"""The status line and headers, beyond the body's limit."""


class HttpSaid(Code):
    TOO_LARGE = N_("answer too large (over {size})")


class AnswerTooLarge(ConnectionError):
    """The answer passed its limit: what was read is dropped, the node is told about."""

    def __init__(self, limit: int):
        self.limit = limit
        super().__init__(str(self.said))

    @property
    def said(self) -> Said:
        return said(HttpSaid.TOO_LARGE, size=Size(self.limit))


@dataclass(frozen=True)
class HttpAnswer:
    status: int
    body: str


async def http_get(transport: Transport, host: str, port: int, path: str,
                   timeout: float, *, limit: int = MAX_BODY,
                   bearer: str | None = None) -> HttpAnswer:
    return await http_request(transport, host, port, "GET", path, timeout, limit=limit,
                              bearer=bearer)


async def http_request(transport: Transport, host: str, port: int, method: str, path: str,
                       timeout: float, *, body: bytes = b"",
                       content_type: str = "application/json",
                       limit: int = MAX_BODY, bearer: str | None = None) -> HttpAnswer:
    """``method path`` with an optional body; the whole answer within ``timeout`` and
    ``limit`` bytes. ``bearer``: a key sent as ``Authorization: Bearer`` (the router's)."""
    return await _exchange(lambda: transport.open_tcp(host, port, timeout), f"{host}:{port}",
                           method, path, timeout, limit, body, content_type, bearer)


async def unix_get(transport: Transport, socket: str, path: str,
                   timeout: float, *, limit: int = MAX_BODY) -> HttpAnswer:
    """``GET path`` of the server on the node's Unix socket ``socket``."""
    return await _exchange(lambda: transport.open_unix(socket, timeout), "localhost",
                           "GET", path, timeout, limit)


async def _exchange(connect: Callable[[], Awaitable[tuple[Any, Any]]], host: str, method: str,
                    path: str, timeout: float, limit: int, body: bytes = b"",
                    content_type: str = "application/json",
                    bearer: str | None = None) -> HttpAnswer:
    async def _request() -> HttpAnswer:
        reader, writer = await connect()
        try:
            request = f"{method} {path} HTTP/1.0\r\nHost: {host}\r\nAccept: */*\r\n"
            if bearer:
                request += f"Authorization: Bearer {bearer}\r\n"
            if body:
                request += (f"Content-Type: {content_type}\r\n"
                            f"Content-Length: {len(body)}\r\n")
            writer.write((request + "\r\n").encode("ascii") + body)
            try:
                data = await read_bounded(reader, limit, extra=HEAD_ROOM)
            except TooLarge:
                raise AnswerTooLarge(limit) from None
        finally:
            with contextlib.suppress(Exception):
                writer.close()
        head, _sep, answer = data.partition(b"\r\n\r\n")
        status_line = head.split(b"\r\n", 1)[0].split()
        if len(status_line) < 2 or not status_line[1].isdigit():
            raise ConnectionError("not an HTTP answer")
        return HttpAnswer(int(status_line[1]), answer.decode("utf-8", "replace"))

    return await within(_request(), timeout)
