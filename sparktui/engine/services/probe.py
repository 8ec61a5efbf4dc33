"""Probes on one service container: its state, its readiness, its last log lines.

Shared by serve (the readiness gate) and health (what the services pane shows).
Every probe goes through the node's transport: TCP and HTTP ride the SSH
connection (direct-tcpip), so a service on the node's own address is reached
exactly as the node itself would reach it.
"""

from __future__ import annotations

import contextlib
import re
import shlex
from dataclasses import dataclass

from sparktui.engine.remote.http import http_get
from sparktui.engine.remote.transport import Transport
from sparktui.plan.service_model import Readiness


@dataclass(frozen=True)
class Target:
    """Where one instance lives: enough to probe it without its plan."""

    node: str
    host: str  # the address probes connect to (the node's SSH address)
    container: str
    runtime: str  # "docker" or "tmux"


def runtime_of(launch: list[str]) -> str:
    return "tmux" if launch[:1] == ["tmux"] else "docker"


async def state(t: Transport, target: Target) -> tuple[str, int | None]:
    """(docker State, exit code when not running); "missing" when there is no such container."""
    if target.runtime == "tmux":
        ok = (await t.run(shlex.join(["tmux", "has-session", "-t", target.container])
                          + " 2>/dev/null")).ok
        return ("running", None) if ok else ("missing", None)  # a session leaves no trace
    got = await t.run(shlex.join(["docker", "inspect", "--format",
                                  "{{.State.Status}} {{.State.ExitCode}}", target.container])
                      + " 2>/dev/null")
    parts = got.stdout.split()
    if not got.ok or not parts:
        return "missing", None
    code = int(parts[1]) if len(parts) > 1 and parts[1].lstrip("-").isdigit() else None
    return parts[0], None if parts[0] == "running" else code


async def logs(t: Transport, target: Target, tail: int | None = None) -> str:
    if target.runtime == "tmux":
        path = f'"$HOME/.cache/sparktui/{target.container}.log"'
        cmd = f"cat {path} 2>/dev/null"
        if tail is not None:
            cmd = f"tail -n {int(tail)} {path} 2>/dev/null"
        return (await t.run(cmd)).stdout
    argv = ["docker", "logs"] + (["--tail", str(tail)] if tail is not None else [])
    return (await t.run(shlex.join([*argv, target.container]) + " 2>&1")).stdout


async def ready(t: Transport, target: Target, readiness: Readiness,
                timeout: float = 5.0) -> bool:
    """One readiness probe; False while not (yet) ready, never raises for a refusal."""
    kind = readiness.kind
    if kind == "none":
        return True
    if kind == "tcp" and readiness.port:
        try:
            _reader, writer = await t.open_tcp(target.host, readiness.port, timeout)
        except Exception:  # refused, timed out, channel error: not listening yet
            return False
        with contextlib.suppress(Exception):
            writer.close()
        return True
    if kind == "http" and readiness.port:
        try:
            answer = await http_get(t, target.host, readiness.port, readiness.path or "/",
                                    timeout)
        except Exception:
            return False
        return 200 <= answer.status < 300
    if kind == "log" and readiness.pattern:
        try:
            pattern = re.compile(readiness.pattern)
        except re.error:
            return False
        text = await logs(t, target)
        return any(pattern.search(line) for line in text.splitlines())
    return False


def describe(readiness: Readiness) -> str:
    if readiness.kind == "tcp":
        return f"tcp {readiness.port}"
    if readiness.kind == "http":
        return f"http {readiness.port}{readiness.path or '/'}"
    if readiness.kind == "log":
        return f"log /{readiness.pattern}/"
    return ""
