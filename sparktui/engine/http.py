"""A small HTTP/1.0 GET over any stream pair, so the head's API is reached through
the SSH connection (direct-tcpip) exactly as it is locally."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass

from sparktui.engine.transport import Transport

MAX_BODY = 4 << 20


@dataclass(frozen=True)
class HttpAnswer:
    status: int
    body: str


async def http_get(transport: Transport, host: str, port: int, path: str,
                   timeout: float) -> HttpAnswer:
    async def _get() -> HttpAnswer:
        reader, writer = await transport.open_tcp(host, port, timeout)
        try:
            request = f"GET {path} HTTP/1.0\r\nHost: {host}:{port}\r\nAccept: */*\r\n\r\n"
            writer.write(request.encode("ascii"))
            raw = await reader.read(MAX_BODY)
            chunks = [raw]
            while raw:
                raw = await reader.read(MAX_BODY)
                chunks.append(raw)
            data = b"".join(c if isinstance(c, bytes) else c.encode() for c in chunks)
        finally:
            with contextlib.suppress(Exception):
                writer.close()
        head, _, body = data.partition(b"\r\n\r\n")
        status_line = head.split(b"\r\n", 1)[0].split()
        if len(status_line) < 2 or not status_line[1].isdigit():
            raise ConnectionError("not an HTTP answer")
        return HttpAnswer(int(status_line[1]), body.decode("utf-8", "replace"))

    return await asyncio.wait_for(_get(), timeout)
