"""One node pulls the image from its registry, with byte progress.

Why the Docker API and not ``docker pull``: the CLI prints no byte counts when its output
is not a terminal. ``POST /images/create`` streams the daemon's own JSON progress (per
layer: bytes downloaded of its size), read here through the SSH connection's forwarding to
the socket the node's CLI uses (``docker_socket``), bounded: at most ``LINE_LIMIT`` per
line and ``STREAM_LIMIT`` in all. Closing the connection (Ctrl+C) cancels the daemon's
pull; a half-pulled image is never tagged. Where the socket cannot be reached the CLI
pulls (its byte count said once, at its end).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import urlencode

from sparktui.engine.drivers.docker_api import docker_socket
from sparktui.engine.pull.copy import size_argv
from sparktui.engine.remote.transport import NodeError, Transport, argv_command
from sparktui.plan.image_pin import parse_reference
from sparktui.plan.pull.download import download_size, insecure, platform, registry_host
from sparktui.plan.pull.image import LayerProgress, PullSaid, image_size
from sparktui.said import Text, said

LINE_LIMIT = 1 << 16
STREAM_LIMIT = 64 << 20
"""The daemon's progress lines for one pull: far more than any real pull says."""
REPORT_SECONDS = 0.5
PULL_SECONDS = 24 * 3600.0
"""The CLI's pull (no socket) is waited for this long: an image of tens of GB on a slow link."""


def create_path(image: str) -> str:
    """``POST /images/create``'s path: the reference, ``latest`` when it names no tag."""
    ref = parse_reference(image)
    query = {"fromImage": image}
    if ref.tag is None and ref.digest is None:
        query["tag"] = "latest"
    return "/images/create?" + urlencode(query)


_INFO = ["docker", "info", "--format", '{{.OSType}} {{.Architecture}}{{"\\n"}}'
         "{{json .RegistryConfig}}"]


async def registry_download(t: Transport, image: str) -> int | Text:
    """The bytes the node would download to pull ``image`` (its platform's layers, as
    its registry's manifest says them); else why they could not be read."""
    info = await t.run(argv_command(_INFO))
    first, _sep, config = info.stdout.partition("\n") if info.ok else ("", "", "")
    argv = ["docker", "manifest", "inspect", "-v"]
    if insecure(config, registry_host(image)):
        argv.append("--insecure")
    done = await t.run(argv_command([*argv, image]))
    size = download_size(done.stdout, platform(first)) if done.ok else None
    if size is not None:
        return size
    answer = (done.stderr or done.stdout).strip() if not done.ok else "no layer sizes"
    return said(PullSaid.DOWNLOAD_UNREAD, node=t.node.name, image=image,
                answer=answer[:160] or f"exit status {done.exit_code}")


async def registry_pull(t: Transport, image: str, moved: Callable[[int, int], None]
                        ) -> str | None:
    """Pull ``image`` on the node; ``moved(done, total)`` as bytes arrive. None when it
    was pulled, else what the daemon (or the CLI) said."""
    socket = await docker_socket(t)
    if socket is not None:
        try:
            reader, writer = await t.open_unix(socket)
        except NodeError:
            raise
        except Exception:  # the forwarding refused: the CLI pulls
            socket = None
    if socket is None:
        done = await t.run(argv_command(["docker", "pull", "--quiet", image]),
                           timeout=PULL_SECONDS)
        if not done.ok:
            return (done.stderr or done.stdout).strip()[:300] or f"exit status {done.exit_code}"
        size = await t.run(argv_command(size_argv(image)))  # its bytes, said at the end
        if (count := image_size(size.stdout) if size.ok else None) is not None:
            moved(count, count)
        return None
    try:
        return await _api_pull(reader, writer, image, moved)
    finally:
        with contextlib.suppress(Exception):
            writer.close()


async def _api_pull(reader: Any, writer: Any, image: str,
                    moved: Callable[[int, int], None]) -> str | None:
    writer.write((f"POST {create_path(image)} HTTP/1.0\r\nHost: docker\r\n"
                  "Content-Length: 0\r\n\r\n").encode("ascii"))
    head = await _head(reader)
    if head is None:
        return "no HTTP answer from the docker daemon"
    status, rest = head
    if status != 200:
        return _said(rest + await _read_some(reader))
    progress = LayerProgress()
    last = 0.0
    ended = False
    async for line in _lines(reader, rest):
        if line is None:
            ended = True
            break
        progress.read(line)
        now = time.monotonic()
        if now - last >= REPORT_SECONDS and progress.total:
            last = now
            moved(progress.done, progress.total)
    if progress.error:
        return progress.error
    if not ended:
        return f"the docker daemon said more than {STREAM_LIMIT >> 20} MiB of progress"
    moved(progress.total, progress.total)
    return None


async def _head(reader: Any) -> tuple[int, bytes] | None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = await reader.read(4096)
        if not chunk or len(data) > LINE_LIMIT:
            return None
        data += chunk
    head, _sep, rest = data.partition(b"\r\n\r\n")
    parts = head.split(b"\r\n", 1)[0].split()
    status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
    return status, rest


async def _read_some(reader: Any) -> bytes:
    data = b""
    while len(data) < LINE_LIMIT:
        chunk = await reader.read(4096)
        if not chunk:
            break
        data += chunk
    return data[:LINE_LIMIT]


async def _lines(reader: Any, rest: bytes) -> AsyncIterator[str | None]:
    """The stream's lines (each cut at ``LINE_LIMIT``), then None at its end; nothing
    more past ``STREAM_LIMIT``."""
    buffer, seen = rest, len(rest)
    while True:
        *whole, buffer = buffer.split(b"\n")
        for line in whole:
            yield line[:LINE_LIMIT].decode("utf-8", "replace")
        buffer = buffer[-LINE_LIMIT:]
        chunk = await reader.read(1 << 16)
        if not chunk:
            if buffer.strip():
                yield buffer.decode("utf-8", "replace")
            yield None
            return
        seen += len(chunk)
        if seen > STREAM_LIMIT:
            return
        buffer += chunk


def _said(body: bytes) -> str:
    """The daemon's refusal (its JSON ``message``, else its text), cut."""
    text = body.decode("utf-8", "replace")
    with contextlib.suppress(ValueError, AttributeError):
        message = json.loads(text).get("message")
        if isinstance(message, str):
            return message[:300]
    return text.strip()[:300] or "no answer"
