"""A node that lies, and nodes that tell what they were asked (README: "The lying node").

A lying node's sshd runs ``LIE`` as its ``ForceCommand``: every command sparktui sends
is recorded, never run, and answered from files the test writes (``LyingNode.tell``),
by what the command is for (``KINDS``: the docker listing, a state, the logs, a stop).
Its docker API socket and its engine's HTTP port are servers of the test's own
(``LyingServer``), whose answers the test sets too, endless ones included. An honest
node's sshd runs ``RECORD``, which records the command, then runs it as sshd would.

Every endless answer is bounded on the liar's side as well (``ENDLESS_SECONDS``,
``ENDLESS_BYTES``): a client that never hangs up costs a few seconds, never a run.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import socket
import socketserver
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any

ENDLESS_SECONDS = 4.0
ENDLESS_BYTES = 1 << 30
CHUNK = 1 << 16

KINDS = ("endpoint", "docker_list", "tmux_list", "state", "logs", "signal", "stop",
         "remove", "telemetry", "other")
"""What a command is for, by the words it holds (``classify``; the script's copy)."""

def classify(command: str) -> str:
    """The answer a command gets: the first kind whose words it holds."""
    if "DOCKER_HOST" in command and "context inspect" in command:
        return "endpoint"
    if "docker ps -aq" in command:
        return "docker_list"
    if "tmux ls" in command:
        return "tmux_list"
    if "docker inspect --format" in command:
        return "state"
    if "docker logs" in command or ".cache/sparktui/" in command:
        return "logs"
    for word, kind in (("docker kill", "signal"), ("docker stop", "stop"),
                       ("docker rm", "remove"), ("@@sparktui-telemetry@@", "telemetry")):
        if word in command:
            return kind
    return "other"

LIE = r'''
import json, os, sys, time
LIE = os.path.join(os.environ["SPARKTUI_NODE_STATE"], "lie")
command = os.environ.get("SSH_ORIGINAL_COMMAND", "")
record = os.open(os.path.join(LIE, "asked.jsonl"), os.O_WRONLY | os.O_APPEND | os.O_CREAT)
os.write(record, (json.dumps(command) + "\n").encode())
os.close(record)
%(classify)s

def told(kind):
    """(bytes, exit code, times to repeat or None: endless)."""
    try:
        with open(os.path.join(LIE, kind + ".data"), "rb") as f:
            data = f.read()
        with open(os.path.join(LIE, kind + ".meta")) as f:
            code, repeat = f.read().split()
    except (OSError, ValueError):
        return b"", 0, 1
    return data, int(code), None if repeat == "endless" else int(repeat)


def say(data, repeat):
    deadline = time.monotonic() + %(seconds)r
    if repeat is None and not data:  # a node that never answers (within the bound)
        while time.monotonic() < deadline:
            time.sleep(0.05)
        return
    block = data * max(1, %(chunk)d // max(1, len(data)))
    sent, count = 0, 0
    while repeat is None or count < repeat:
        piece = data if repeat is not None else block
        try:
            os.write(1, piece)
        except OSError:  # the reader went away
            return
        sent += len(piece)
        count += 1 if repeat is not None else 0
        if repeat is None and (sent > %(most)d or time.monotonic() > deadline):
            return


kind = classify(command)
data, code, repeat = told(kind)
say(data, repeat)
if kind == "docker_list" and "tmux ls" in command:  # the whole listing at once
    os.write(1, b"\n@@sparktui-tmux@@\n")
    more, _, times = told("tmux_list")
    say(more, times)
sys.exit(code)
'''

RECORD = r'''#!/bin/bash
# An honest node: the command is recorded, then run as sshd runs it. The record appears
# whole (written aside, then renamed): a test reading the folder meanwhile never sees a
# record still empty.
asked="$SPARKTUI_NODE_STATE/asked"
printf '%s' "${SSH_ORIGINAL_COMMAND-}" > "$asked/.$$"
mv -f "$asked/.$$" "$asked/${EPOCHREALTIME/./}-$$"
if [ -n "${SSH_ORIGINAL_COMMAND+set}" ]; then exec /bin/bash -c "$SSH_ORIGINAL_COMMAND"; fi
exec /bin/bash -l
'''


def _short(data: bytes) -> str:
    """A long answer by its start and its length (a failing example stays readable)."""
    return repr(data) if len(data) <= 160 else f"{data[:120]!r} + ... ({len(data)} bytes)"


@dataclass(frozen=True, repr=False)
class Answer:
    """What a command is answered: ``data`` ``repeat`` times (None: without end,
    within the bound), then the exit code."""

    data: bytes = b""
    exit: int = 0
    repeat: int | None = 1

    def __repr__(self) -> str:
        return f"Answer({_short(self.data)}, exit={self.exit}, repeat={self.repeat})"


class HonestNode:
    """A node that runs what it is asked, as before, and records every command."""

    def __init__(self, node: Any) -> None:
        self.node = node
        self.folder = node.state_dir / "asked"
        self.folder.mkdir(exist_ok=True)
        script = node.state_dir / "record-command"
        script.write_text(RECORD)
        script.chmod(0o755)
        node.reconfigure(f"ForceCommand {script}")

    def asked(self) -> list[str]:
        """Every command the node was sent since the last ``forget``, in order."""
        return [p.read_text(errors="replace") for p in sorted(self.folder.iterdir())
                if not p.name.startswith(".")]  # a record still being written

    def forget(self) -> None:
        for path in self.folder.iterdir():
            path.unlink(missing_ok=True)  # a record being written is renamed meanwhile


class LyingNode:
    """A node whose every SSH command is recorded and answered from ``tell``'s files."""

    def __init__(self, node: Any, *forwarding: str) -> None:
        self.node = node
        self.folder = node.state_dir / "lie"
        self.folder.mkdir(exist_ok=True)
        script = node.state_dir / "lie-command"
        script.write_text(f"#!{sys.executable} -IS\n" + LIE % {
            "classify": inspect.getsource(classify), "seconds": ENDLESS_SECONDS, "chunk": CHUNK,
            "most": ENDLESS_BYTES})
        script.chmod(0o755)
        self.api = LyingServer(socket.AF_UNIX, str(node.state_dir / "lie-docker.sock"))
        node.reconfigure(f"ForceCommand {script}", *forwarding)

    def tell(self, answers: dict[str, Answer]) -> None:
        """From now on each kind of command gets its answer (an empty one otherwise);
        the record starts anew."""
        unknown = set(answers) - set(KINDS)
        assert not unknown, unknown
        for path in self.folder.iterdir():
            path.unlink()
        for kind, answer in answers.items():
            (self.folder / f"{kind}.data").write_bytes(answer.data)
            repeat = "endless" if answer.repeat is None else str(answer.repeat)
            (self.folder / f"{kind}.meta").write_text(f"{answer.exit} {repeat}\n")

    @property
    def api_endpoint(self) -> str:
        """What the node says its docker socket is, to have the API path read ``api``."""
        return f"unix://{self.api.address}"

    def asked(self) -> list[str]:
        path = self.folder / "asked.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line]

    def close(self) -> None:
        self.api.close()


@dataclass(frozen=True, repr=False)
class HttpLie:
    """A raw HTTP answer: ``head`` (status line and headers, as sent), then ``body``
    ``repeat`` times (None: without end, within the bound)."""

    body: bytes = b""
    head: bytes = b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n"
    repeat: int | None = 1

    def __repr__(self) -> str:
        return f"HttpLie({_short(self.body)}, head={self.head!r}, repeat={self.repeat})"


class LyingServer:
    """An HTTP server of the test's own on a TCP (host, port) or a Unix socket path:
    each request's path (query aside) gets ``answers[path]``, or a 404."""

    def __init__(self, family: int, address: Any) -> None:
        self.answers: dict[str, HttpLie] = {}
        self.paths: list[str] = []
        self.address = address
        lies = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                lies._answer(self.request)

        base = (socketserver.ThreadingUnixStreamServer if family == socket.AF_UNIX
                else socketserver.ThreadingTCPServer)
        if family == socket.AF_UNIX:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(address)
        server_class = type("Server", (base,), {"daemon_threads": True,
                                                "allow_reuse_address": True})
        self.server = server_class(address, Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True,
                                       kwargs={"poll_interval": 0.1})
        self.thread.start()

    def _answer(self, conn: socket.socket) -> None:
        conn.settimeout(ENDLESS_SECONDS)
        request = b""
        with contextlib.suppress(OSError):
            while b"\r\n\r\n" not in request and len(request) < 16384:
                got = conn.recv(4096)
                if not got:
                    break
                request += got
        words = request.split(b"\r\n", 1)[0].split()
        path = words[1].decode("latin-1").split("?", 1)[0] if len(words) > 1 else ""
        self.paths.append(path)
        lie = self.answers.get(path, HttpLie(b"", b"HTTP/1.0 404 Not Found\r\n\r\n"))
        deadline = time.monotonic() + ENDLESS_SECONDS
        sent = 0
        block = lie.body * max(1, CHUNK // max(1, len(lie.body)))
        with contextlib.suppress(OSError):
            conn.sendall(lie.head)
            count = 0
            while lie.repeat is None or count < lie.repeat:
                if not lie.body:
                    if lie.repeat is not None or time.monotonic() > deadline:
                        break
                    time.sleep(0.05)  # an answer that never ends, and says nothing
                    continue
                piece = lie.body if lie.repeat is not None else block
                conn.sendall(piece)
                sent += len(piece)
                count += 1
                if lie.repeat is None and (sent > ENDLESS_BYTES or time.monotonic() > deadline):
                    break

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        if isinstance(self.address, str):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.address)


def lying_http(node: Any, port: int) -> LyingServer:
    """The liar's "engine": a server on the node's own address and ``port``."""
    return LyingServer(socket.AF_INET, (node.addr, port))


def free_port(addr: str) -> int:
    with socket.socket() as s:
        s.bind((addr, 0))
        return int(s.getsockname()[1])


__all__ = ["KINDS", "Answer", "HonestNode", "HttpLie", "LyingNode", "LyingServer",
           "classify", "free_port", "lying_http"]
