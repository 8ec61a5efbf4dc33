"""Probes on one service container: its state, its readiness, its last log lines.

Shared by serve (the readiness gate) and health (what the services pane shows).
Every probe goes through the node's transport: TCP and HTTP ride the SSH
connection (direct-tcpip), so a service on the node's own address is reached
exactly as the node itself would reach it.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass

from sparktui.config.runtime_name import RuntimeName
from sparktui.engine.drivers import driver_for
from sparktui.engine.remote.http import http_get
from sparktui.engine.remote.transport import Transport
from sparktui.plan.runtime.base import State
from sparktui.plan.service_model import Readiness


@dataclass(frozen=True)
class Target:
    """Where one instance lives: enough to probe it without its plan."""

    node: str
    host: str  # the address probes connect to (the node's SSH address)
    container: str
    runtime: RuntimeName


async def state(t: Transport, target: Target) -> State:
    """MISSING when there is no such container (or session: an ended one leaves no trace)."""
    return await driver_for(target.runtime).state(t, target.container)


async def logs(t: Transport, target: Target, tail: int | None = None) -> str:
    return await driver_for(target.runtime).last_lines(t, target.container, tail)


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
