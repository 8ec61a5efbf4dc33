"""Addresses and names a test process holds on this machine, so that test runs side by
side (pytest-xdist workers, other checkouts' suites) never share one: a loopback block,
a bridge tag, a bridge subnet.

A claim is an flock on ``/tmp/sparktui-claims/<kind>-<value>``, held by this process
until it exits: a crashed run's claims free themselves, nothing needs reaping.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path("/tmp/sparktui-claims")
TRIES = 500

_held: dict[str, int] = {}


def try_claim(kind: str, value: str) -> bool:
    """Hold ``kind-value`` unless a live process (this one included) holds it."""
    key = f"{kind}-{value}"
    if key in _held:
        return False
    ROOT.mkdir(mode=0o700, exist_ok=True)
    fd = os.open(ROOT / key, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return False
    _held[key] = fd
    return True


def release(kind: str, value: str) -> None:
    fd = _held.pop(f"{kind}-{value}", None)
    if fd is not None:
        os.close(fd)  # closing the only descriptor drops the lock


def claim(kind: str, candidate: Callable[[], str]) -> str:
    """The first value ``candidate()`` proposes that nobody holds (random proposals)."""
    for _ in range(TRIES):
        value = candidate()
        if try_claim(kind, value):
            return value
    raise RuntimeError(f"no free {kind} after {TRIES} tries (/tmp/sparktui-claims)")


@contextlib.contextmanager
def held(kind: str, value: str) -> Iterator[bool]:
    """Hold ``kind-value`` for a moment (True) or learn that someone live has it (False)."""
    got = try_claim(kind, value)
    try:
        yield got
    finally:
        if got:
            release(kind, value)
