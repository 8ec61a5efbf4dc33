"""Discover sparktui's containers and tmux sessions on a node, from their labels."""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sparktui.engine.status import Workload
from sparktui.plan.container import LABEL_PREFIX

if TYPE_CHECKING:
    from sparktui.engine.transport import Transport

_TMUX_MARK = "@@sparktui-tmux@@"

# One round trip lists both runtimes; each part tolerates the other being absent.
DISCOVER = (
    f"ids=$(docker ps -aq --filter label={LABEL_PREFIX}recipe 2>/dev/null); "
    'if [ -n "$ids" ]; then docker inspect $ids; else echo "[]"; fi; '
    f"echo {_TMUX_MARK}; "
    "tmux ls -F '#{session_name}' 2>/dev/null | while read -r s; do "
    'case "$s" in sparktui-*) echo "== $s"; '
    "tmux show-environment -t \"$s\" 2>/dev/null | grep '^SPARKTUI_LABEL_';; esac; done; true"
)


def parse_discovery(node: str, output: str) -> list[Workload]:
    docker_part, _, tmux_part = output.partition(_TMUX_MARK)
    return _from_inspect(node, docker_part) + _from_tmux(node, tmux_part)


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
        if session is not None:
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


def remove_command(runtime: str, name: str, grace_seconds: int = 30) -> str:
    """Stop then remove; the exit status is the remove's, so a gone container is success."""
    if runtime == "tmux":
        return shlex.join(["tmux", "kill-session", "-t", name])
    return (shlex.join(["docker", "stop", "-t", str(grace_seconds), name]) + " >/dev/null 2>&1; "
            + shlex.join(["docker", "rm", "-f", name]) + " >/dev/null")


async def roll_back(t: Transport, node: str, runtime: str, container: str,
                    say: Callable[[str, str | None, str, str], None]) -> None:
    """Remove one container a failed serve started; a failure is reported, not raised."""
    from sparktui.engine.transport import NodeError

    say("rollback", node, "started", container)
    try:
        await t.run(remove_command(runtime, container))
        say("rollback", node, "ok", container)
    except NodeError as exc:
        say("rollback", node, "failed", exc.text)
