"""A small HTTP/1.0 client (GET; POST for the deep check) over any stream pair, so the
head's API is reached through the SSH connection (direct-tcpip) exactly as it is locally,
and the node's Docker engine through its Unix socket (stream-local forwarding)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sparktui.engine.remote.transport import Transport

MAX_BODY = 4 << 20


@dataclass(frozen=True)
class HttpAnswer:
    status: int
    body: str


async def http_get(transport: Transport, host: str, port: int, path: str,
                   timeout: float) -> HttpAnswer:
    return await http_request(transport, host, port, "GET", path, timeout)


async def http_request(transport: Transport, host: str, port: int, method: str, path: str,
                       timeout: float, *, body: bytes = b"",
                       content_type: str = "application/json") -> HttpAnswer:
    """``method path`` with an optional body; the whole answer within ``timeout``."""
    return await _exchange(lambda: transport.open_tcp(host, port, timeout), f"{host}:{port}",
                           method, path, timeout, body, content_type)


async def unix_get(transport: Transport, socket: str, path: str,
                   timeout: float) -> HttpAnswer:
    """``GET path`` of the server on the node's Unix socket ``socket``."""
    return await _exchange(lambda: transport.open_unix(socket, timeout), "localhost",
                           "GET", path, timeout)


async def _exchange(connect: Callable[[], Awaitable[tuple[Any, Any]]], host: str, method: str,
                    path: str, timeout: float, body: bytes = b"",
                    content_type: str = "application/json") -> HttpAnswer:
    async def _request() -> HttpAnswer:
        reader, writer = await connect()
        try:
            request = f"{method} {path} HTTP/1.0\r\nHost: {host}\r\nAccept: */*\r\n"
            if body:
                request += (f"Content-Type: {content_type}\r\n"
                            f"Content-Length: {len(body)}\r\n")
            writer.write((request + "\r\n").encode("ascii") + body)
            raw = await reader.read(MAX_BODY)
            chunks = [raw]
            while raw:
                raw = await reader.read(MAX_BODY)
                chunks.append(raw)
            data = b"".join(c if isinstance(c, bytes) else c.encode() for c in chunks)
        finally:
            with contextlib.suppress(Exception):
                writer.close()
        head, _, answer = data.partition(b"\r\n\r\n")
        status_line = head.split(b"\r\n", 1)[0].split()
        if len(status_line) < 2 or not status_line[1].isdigit():
            raise ConnectionError("not an HTTP answer")
        return HttpAnswer(int(status_line[1]), answer.decode("utf-8", "replace"))

    return await asyncio.wait_for(_request(), timeout)
