"""sparktui's own known_hosts: recorded on first contact, never silently replaced."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # asyncssh is imported when a key is fetched: it costs ~0.15 s
    import asyncssh

    from sparktui.config.models import Config, Node

NEW, SAME, CHANGED, FAILED = "new", "same", "changed", "failed"


def known_hosts_path(config: Config) -> Path:
    if config.known_hosts_path:
        return Path(config.known_hosts_path).expanduser()
    return Path.home() / ".config" / "sparktui" / "known_hosts"


def host_pattern(node: Node) -> str:
    return node.ssh_ip if node.ssh_port == 22 else f"[{node.ssh_ip}]:{node.ssh_port}"


@dataclass(frozen=True)
class KeyResult:
    node: str
    outcome: str  # new, same, changed, failed
    fingerprint: str = ""
    detail: str = ""


def _recorded(path: Path) -> dict[str, list[str]]:
    """pattern -> list of 'type base64' recorded for it."""
    entries: dict[str, list[str]] = {}
    if not path.is_file():
        return entries
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) >= 3 and not line.startswith("#"):
            for pattern in parts[0].split(","):
                entries.setdefault(pattern, []).append(f"{parts[1]} {parts[2]}")
    return entries


async def _fetch(node: Node, timeout: float) -> asyncssh.SSHKey:
    import asyncssh

    key = await asyncio.wait_for(
        asyncssh.get_server_host_key(node.ssh_ip, node.ssh_port),
        timeout)
    if key is None:
        raise OSError("the server offered no host key")
    return key


async def init_host_keys(config: Config, nodes: list[Node]) -> list[KeyResult]:
    """Record unknown keys; report changed ones loudly and leave the file's entry as it was."""
    path = known_hosts_path(config)
    recorded = _recorded(path)
    remote = [n for n in nodes if not n.local]
    fetched = await asyncio.gather(*(_fetch(n, config.connect_timeout_seconds) for n in remote),
                                   return_exceptions=True)
    results: list[KeyResult] = []
    new_lines: list[str] = []
    for node, key in zip(remote, fetched, strict=True):
        if isinstance(key, BaseException):
            detail = "timeout" if isinstance(key, TimeoutError) else str(key) or type(key).__name__
            results.append(KeyResult(node.name, FAILED, detail=detail))
            continue
        public = key.export_public_key("openssh").decode().split()
        entry = f"{public[0]} {public[1]}"
        fingerprint = key.get_fingerprint()
        pattern = host_pattern(node)
        known = [e for e in recorded.get(pattern, []) if e.split()[0] == public[0]]
        if not known:
            new_lines.append(f"{pattern} {entry}")
            recorded.setdefault(pattern, []).append(entry)
            results.append(KeyResult(node.name, NEW, fingerprint))
        elif entry in known:
            results.append(KeyResult(node.name, SAME, fingerprint))
        else:
            results.append(KeyResult(node.name, CHANGED, fingerprint,
                                     detail=f"{path}: {pattern}"))
    if new_lines:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as handle:
            handle.write("".join(line + "\n" for line in new_lines))
        os.chmod(path, 0o600)
    return results
