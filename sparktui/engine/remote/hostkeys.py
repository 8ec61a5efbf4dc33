"""sparktui's own known_hosts: recorded on first contact, never silently replaced.

A node's pins are the keys asyncssh trusts for it when connecting (the same matching:
hashed names, ``[addr]:port``, revoked entries). Connections and ``init-host-keys``
offer the pinned key types first and every other type after them, as OpenSSH does:
a node that has a key of a pinned type shows that one, and a node that has none
shows the key it has, which is then refused or reported as changed. Offering only
the pinned types would not do: sshd hangs up on a client with no host key type in
common, which looks like a dead network, and ``init-host-keys`` would not see the key.
"""

from __future__ import annotations

import asyncio
import binascii
import os
import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from sparktui.config.toml_source import read_text
from sparktui.engine.deadline import within
from sparktui.errors import fail

if TYPE_CHECKING:  # asyncssh is imported when a key is fetched: it costs ~0.15 s
    import asyncssh

    from sparktui.config.models import Config, Node

class KeyOutcome(StrEnum):
    """What ``init-host-keys`` did with a node's key."""

    NEW = "new"  # recorded
    SAME = "same"  # already recorded
    CHANGED = "changed"  # a different key than the one recorded, which is kept
    FAILED = "failed"  # the node's key could not be read


def known_hosts_path(config: Config) -> Path:
    if config.known_hosts_path:
        return Path(config.known_hosts_path).expanduser()
    return Path.home() / ".config" / "sparktui" / "known_hosts"


MAX_KNOWN_HOSTS_BYTES = 16 << 20
_MARKERS = ("@cert-authority", "@revoked")
_PLAIN_PATTERNS = re.compile(r"!?[A-Za-z0-9._:*?\[\]%-]+(?:,!?[A-Za-z0-9._:*?\[\]%-]+)*",
                             re.ASCII)
_HASHED_PATTERN = re.compile(r"\|1\|[A-Za-z0-9+/]+={0,2}\|[A-Za-z0-9+/]+={0,2}", re.ASCII)
_KEY_TYPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9@.+-]{2,63}", re.ASCII)


def is_known_hosts_entry(line: str) -> bool:
    """One line as sshd(8)'s SSH_KNOWN_HOSTS FILE FORMAT has it: an optional marker, host
    patterns (or one hashed name), the key type, and the key in base64, whose blob starts
    with that same type (how every OpenSSH key and certificate is encoded); a comment may
    follow."""
    fields = line.split()
    if fields and fields[0].startswith("@"):
        if fields[0] not in _MARKERS:
            return False
        fields = fields[1:]
    if len(fields) < 3:
        return False
    patterns, kind, blob = fields[:3]
    if not (_HASHED_PATTERN.fullmatch(patterns) or _PLAIN_PATTERNS.fullmatch(patterns)):
        return False
    if not _KEY_TYPE.fullmatch(kind):
        return False
    try:
        raw = binascii.a2b_base64(blob, strict_mode=True)
    except binascii.Error:
        return False
    name = kind.encode("ascii")
    return raw[:4] == len(name).to_bytes(4, "big") and raw[4:4 + len(name)] == name


def foreign_line(path: Path) -> int | None:
    """The first line of an existing ``path`` that is not a known_hosts entry (nor empty,
    nor a comment), or None. sparktui appends to its known_hosts: a shared config's
    ``known_hosts_path = "~/.bashrc"`` must not make it write there."""
    if not os.path.lexists(path):
        return None
    text = read_text(path, limit=MAX_KNOWN_HOSTS_BYTES, too_large="known_hosts_too_large")
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and not is_known_hosts_entry(stripped):
            return number
    return None


def refuse_foreign(path: Path) -> None:
    """A problem at the foreign line of ``path`` (see ``foreign_line``), else nothing."""
    if (line := foreign_line(path)) is not None:
        raise fail("known_hosts_foreign", file=path, line=line, path=path, bad_line=line)


def host_pattern(node: Node) -> str:
    return node.ssh_ip if node.ssh_port == 22 else f"[{node.ssh_ip}]:{node.ssh_port}"


@dataclass(frozen=True)
class KeyResult:
    node: str
    outcome: KeyOutcome
    fingerprint: str = ""
    detail: str = ""


@dataclass(frozen=True)
class Pins:
    """What a known_hosts file says about one node."""

    known_hosts: asyncssh.SSHKnownHosts
    trusted: tuple[asyncssh.SSHKey, ...]
    revoked: tuple[asyncssh.SSHKey, ...]

    @property
    def types(self) -> list[str]:
        return list(dict.fromkeys(k.algorithm.decode() for k in self.trusted))

    @property
    def host_key_algs(self) -> list[str]:
        """Every host key algorithm, those of the pinned keys first."""
        from asyncssh.public_key import get_default_certificate_algs, get_default_public_key_algs

        pinned = [alg for key in self.trusted for alg in key.sig_algorithms]
        every = get_default_certificate_algs() + get_default_public_key_algs()
        return list(dict.fromkeys(alg.decode("ascii") for alg in pinned + every))


def read_known_hosts(path: Path) -> asyncssh.SSHKnownHosts:
    """The file as asyncssh reads it: lines it cannot read trust nothing; no file, no key."""
    import asyncssh

    text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    return asyncssh.import_known_hosts(text)


def pins(path: Path, node: Node, known: asyncssh.SSHKnownHosts | None = None) -> Pins:
    """The node's pins in path (or in known, read from it already)."""
    known = read_known_hosts(path) if known is None else known
    port = None if node.ssh_port == 22 else node.ssh_port
    trusted, _ca, revoked, *_ = known.match(node.ssh_ip, node.ssh_ip, port)
    return Pins(known, tuple(dict.fromkeys(trusted)), tuple(dict.fromkeys(revoked)))


async def _fetch(node: Node, timeout: float, algs: list[str]) -> asyncssh.SSHKey:
    import asyncssh

    key = await within(
        asyncssh.get_server_host_key(node.ssh_ip, node.ssh_port, server_host_key_algs=algs),
        timeout)
    if key is None:
        raise OSError("the server offered no host key")
    return key


async def init_host_keys(config: Config, nodes: list[Node]) -> list[KeyResult]:
    """Record the keys of nodes with no pin; report any other key than a pinned one
    (another key, another type, a revoked key) as changed and leave the file as it was."""
    path = known_hosts_path(config)
    remote = [n for n in nodes if not n.local]
    refuse_foreign(path)
    try:
        known = read_known_hosts(path)
    except (OSError, ValueError) as exc:  # unreadable, or a line asyncssh rejects
        return [KeyResult(n.name, KeyOutcome.FAILED, detail=f"{path}: {exc}") for n in remote]
    pinned = [pins(path, n, known) for n in remote]
    fetched = await asyncio.gather(
        *(_fetch(n, config.connect_timeout_seconds, p.host_key_algs)
          for n, p in zip(remote, pinned, strict=True)),
        return_exceptions=True)
    results: list[KeyResult] = []
    added: dict[str, asyncssh.SSHKey] = {}  # pattern -> key recorded by this run
    for node, pin, key in zip(remote, pinned, fetched, strict=True):
        if isinstance(key, BaseException):
            detail = "timeout" if isinstance(key, TimeoutError) else str(key) or type(key).__name__
            results.append(KeyResult(node.name, KeyOutcome.FAILED, detail=detail))
            continue
        fingerprint = key.get_fingerprint()
        pattern = host_pattern(node)
        trusted = pin.trusted or ((added[pattern],) if pattern in added else ())
        if key in trusted and key not in pin.revoked:
            results.append(KeyResult(node.name, KeyOutcome.SAME, fingerprint))
        elif trusted or key in pin.revoked:
            types = ", ".join(pin.types) or "@revoked"
            results.append(KeyResult(node.name, KeyOutcome.CHANGED, fingerprint,
                                     detail=f"{path}: {pattern} ({types})"))
        else:
            added[pattern] = key
            results.append(KeyResult(node.name, KeyOutcome.NEW, fingerprint))
    if added:
        _append(path, [f"{pattern} {_openssh(key)}" for pattern, key in added.items()])
    return results


def pinned_lines(path: Path, node: Node) -> list[str]:
    """The known_hosts lines of what ``path`` trusts and revokes for ``node``: a copy of
    its pins for another machine (``supervise --on-node``)."""
    pin = pins(path, node)
    pattern = host_pattern(node)
    return ([f"{pattern} {_openssh(key)}" for key in pin.trusted]
            + [f"@revoked {pattern} {_openssh(key)}" for key in pin.revoked])


def _openssh(key: asyncssh.SSHKey) -> str:
    kind, blob = key.export_public_key("openssh").decode().split()[:2]
    return f"{kind} {blob}"


def _append(path: Path, lines: list[str]) -> None:
    """Appended to a known_hosts file (checked by ``refuse_foreign``), created private
    when missing; an existing file keeps its mode (the operator's ~/.ssh/known_hosts is
    theirs to set)."""
    refuse_foreign(path)  # again, just before writing: what the checks said still holds
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOCTTY, 0o600)
    with os.fdopen(fd, "rb+") as handle:
        size = os.fstat(fd).st_size
        lead = b""
        if size:  # a last line without its newline keeps it apart
            lead = b"" if os.pread(fd, 1, size - 1) == b"\n" else b"\n"
        handle.write(lead + "".join(line + "\n" for line in lines).encode())
