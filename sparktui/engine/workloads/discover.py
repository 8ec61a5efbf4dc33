"""Discover sparktui's containers and tmux sessions on a node, from their labels."""

from __future__ import annotations

import json
import math
import shlex
from collections.abc import Callable
from typing import Any, NamedTuple

from sparktui.engine.remote.transport import Completed, NodeError, Transport
from sparktui.engine.status import Workload
from sparktui.plan.container import LABEL_PREFIX

_TMUX_MARK = "@@sparktui-tmux@@"
_DOCKER_ERROR = "@@sparktui-docker-error@@"

# One round trip lists both runtimes. A docker that cannot answer is reported with its
# error (never read as "nothing runs"); a node without docker (exit 127) has no
# containers. Only tmux sessions that carry our labels are ours.
DISCOVER = (
    f"ids=$(docker ps -aq --filter label={LABEL_PREFIX}recipe 2>&1); rc=$?; "
    'if [ "$rc" -eq 127 ]; then echo "[]"; '
    f'elif [ "$rc" -ne 0 ]; then echo {_DOCKER_ERROR}; printf "%s\\n" "$ids" | head -n 3; '
    'elif [ -n "$ids" ]; then docker inspect $ids 2>/dev/null; else echo "[]"; fi; '
    f"echo {_TMUX_MARK}; "
    "tmux ls -F '#{session_name}' 2>/dev/null | while read -r s; do "
    'case "$s" in sparktui-*) echo "== $s"; '
    "tmux show-environment -t \"$s\" 2>/dev/null | grep '^SPARKTUI_LABEL_';; esac; done; true"
)


class Discovery(NamedTuple):
    workloads: list[Workload]
    docker_error: str | None = None
    """What docker said when it could not list containers (its daemon is down, say)."""


def parse_discovery(node: str, output: str) -> Discovery:
    docker_part, _, tmux_part = output.partition(_TMUX_MARK)
    tmux = _from_tmux(node, tmux_part)
    if docker_part.lstrip().startswith(_DOCKER_ERROR):
        why = docker_part.lstrip()[len(_DOCKER_ERROR):].strip()
        return Discovery(tmux, why or "docker failed")
    return Discovery(_from_inspect(node, docker_part) + tmux)


async def discover(t: Transport) -> list[Workload]:
    """The node's workloads; NodeError when SSH or the node's docker cannot answer."""
    found = parse_discovery(t.node.name, (await t.run(DISCOVER)).stdout)
    if found.docker_error is not None:
        raise NodeError(t.node.name, "docker unreachable", found.docker_error)
    return found.workloads


def _from_inspect(node: str, text: str) -> list[Workload]:
    try:
        items: list[dict[str, Any]] = json.loads(text.strip() or "[]")
    except json.JSONDecodeError:
        return []
    found = []
    for item in items:
        labels = (item.get("Config") or {}).get("Labels") or {}
        state = item.get("State") or {}
        label = {k[len(LABEL_PREFIX):]: v for k, v in labels.items()
                 if k.startswith(LABEL_PREFIX)}
        status = state.get("Status", "unknown")
        exit_code = state.get("ExitCode")
        found.append(Workload(
            name=str(item.get("Name", "")).lstrip("/"),
            recipe=label.get("recipe", ""), cluster=label.get("cluster", ""),
            node=label.get("node", node), rank=_int(label.get("rank"), 0),
            role=label.get("role", ""), runtime="docker", state=status,
            status=status if status == "running" else f"{status} ({exit_code})",
            port=_int(label.get("port"), None), image=(item.get("Config") or {}).get("Image", ""),
            started_at=state.get("StartedAt"), restarts=_int(item.get("RestartCount"), 0),
            exit_code=None if status == "running" else exit_code,
            service=label.get("service"), service_index=_int(label.get("service_index"), None),
            labels=label,
        ))
    return found


def _from_tmux(node: str, text: str) -> list[Workload]:
    found = []
    session, labels = None, {}

    def flush() -> None:
        # A session named sparktui-* without our labels belongs to someone else.
        if session is not None and labels.get("RECIPE"):
            found.append(Workload(
                name=session, recipe=labels.get("RECIPE", ""), cluster=labels.get("CLUSTER", ""),
                node=labels.get("NODE", node), rank=_int(labels.get("RANK"), 0),
                role=labels.get("ROLE", ""), runtime="tmux", state="running", status="running",
                port=_int(labels.get("PORT"), None), service=labels.get("SERVICE"),
                service_index=_int(labels.get("SERVICE_INDEX"), None),
                labels={k.lower(): v for k, v in labels.items()}))

    for line in text.splitlines():
        if line.startswith("== "):
            flush()
            session, labels = line[3:].strip(), {}
        elif line.startswith("SPARKTUI_LABEL_") and "=" in line:
            key, value = line[len("SPARKTUI_LABEL_"):].split("=", 1)
            labels[key] = value
    flush()
    return found


def _int(value: Any, default: Any) -> Any:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


STOP_MARGIN_SECONDS = 15.0
"""How much longer than docker's grace period a stop waits before giving up on it."""


def _gone(result: Completed) -> bool:
    return result.ok or "no such container" in (result.stderr + result.stdout).lower()


async def signal_stop(t: Transport, runtime: str, name: str) -> None:
    """Tell a head to stop serving now (SIGTERM), before its group is removed."""
    if runtime == "docker":
        await t.run(shlex.join(["docker", "kill", "--signal", "TERM", name]) + " >/dev/null 2>&1")


async def remove_workload(t: Transport, runtime: str, name: str,
                          grace_seconds: float = 30.0) -> Completed:
    """Stop (the engine gets its grace period, then SIGKILL), then always remove.

    The stop runs under a timeout of the grace period plus a margin, so an engine that
    needs all of it is waited for instead of abandoned a moment before docker kills it;
    the remove runs whatever the stop said. A container that is already gone is success.
    """
    if runtime == "tmux":
        result = await t.run(shlex.join(["tmux", "kill-session", "-t", name]))
        gone = result.ok or "can't find session" in result.stderr
        return Completed(0 if gone else result.exit_code, result.stdout, result.stderr)
    grace = max(0, math.ceil(grace_seconds))
    try:
        await t.run(shlex.join(["docker", "stop", "-t", str(grace), name]),
                    timeout=grace + STOP_MARGIN_SECONDS)
    except NodeError as exc:
        if exc.reason != "timeout":
            raise
    result = await t.run(shlex.join(["docker", "rm", "-f", name]))
    return Completed(0 if _gone(result) else result.exit_code, result.stdout, result.stderr)


async def roll_back(t: Transport, node: str, runtime: str, container: str,
                    say: Callable[[str, str | None, str, str], None],
                    grace_seconds: float = 30.0) -> None:
    """Remove one container a failed serve started; a failure is reported, not raised."""
    say("rollback", node, "started", container)
    try:
        result = await remove_workload(t, runtime, container, grace_seconds)
    except NodeError as exc:
        say("rollback", node, "failed", exc.text)
        return
    if result.ok:
        say("rollback", node, "ok", container)
    else:
        say("rollback", node, "failed", (result.stderr or result.stdout).strip()[:200])
