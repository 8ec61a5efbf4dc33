"""Small /proc helpers used to control and clean up the simulated hosts' processes."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterable


def _stat_fields(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    # comm may contain spaces/parens: split after the last ')'
    return raw[raw.rfind(")") + 2 :].split()


def is_alive(pid: int) -> bool:
    """True if pid exists and is not a zombie."""
    fields = _stat_fields(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def start_time(pid: int) -> str | None:
    """Kernel start time of pid (tells a pid apart from a later process reusing it)."""
    fields = _stat_fields(pid)
    return None if fields is None or fields[0] in ("Z", "X") else fields[19]


def all_pids() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def children_map() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for pid in all_pids():
        fields = _stat_fields(pid)
        if fields is not None:
            kids.setdefault(int(fields[1]), []).append(pid)
    return kids


def descendants(pid: int) -> list[int]:
    """All descendants of pid (not pid itself), parents before children."""
    kids = children_map()
    out: list[int] = []
    todo = [pid]
    while todo:
        for child in kids.get(todo.pop(0), []):
            out.append(child)
            todo.append(child)
    return out


def signal_pids(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def signal_tree(pid: int, sig: int) -> list[int]:
    """Signal pid and all its descendants; repeat until no new descendant shows up.

    Used for SIGSTOP (hang) so that a child forked while we were stopping the others
    is stopped as well. Returns every pid signalled.
    """
    seen: list[int] = []
    for _ in range(20):
        new = [p for p in [pid, *descendants(pid)] if p not in seen]
        if not new:
            break
        signal_pids(new, sig)
        seen.extend(new)
        time.sleep(0.01)
    return seen


def wait_dead(pids: Iterable[int], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    pids = list(pids)
    while True:
        if not any(is_alive(p) for p in pids):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)


def pids_with_env(key: str, path: str) -> list[int]:
    """Processes whose environment has key=<path or a path below it>."""
    exact = f"{key}={path.rstrip('/')}".encode()
    below = exact + b"/"
    me = os.getpid()
    out = []
    for pid in all_pids():
        if pid == me:
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read()
        except OSError:
            continue
        if any(item == exact or item.startswith(below) for item in env.split(b"\0")):
            out.append(pid)
    return out


def cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return b""


def write_owner(root) -> None:
    """Mark ``root`` as this test process's, for ``orphaned_roots`` of a later run."""
    import json
    from pathlib import Path

    owner = {"pid": os.getpid(), "start": start_time(os.getpid())}
    (Path(root) / "owner.json").write_text(json.dumps(owner))


def orphaned_roots(pattern: str) -> list:
    """Folders under /tmp matching ``pattern`` whose owning test process is gone."""
    import json
    from pathlib import Path

    found = []
    for owner_file in Path("/tmp").glob(f"{pattern}/owner.json"):
        try:
            owner = json.loads(owner_file.read_text())
        except (OSError, ValueError):
            continue
        if start_time(owner.get("pid", 0)) != owner.get("start"):
            found.append(owner_file.parent)
    return found


def pids_with_cmdline(needle: str) -> list[int]:
    """Processes whose command line mentions ``needle`` (a dead test run's daemon root)."""
    me = os.getpid()
    out = []
    for pid in all_pids():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if pid != me and needle.encode() in cmd:
            out.append(pid)
    return out


def kill_env_matching(key: str, path: str, rounds: int = 5) -> int:
    """SIGKILL every process whose environment has key=<path or a path below it>."""
    killed = 0
    for _ in range(rounds):
        pids = [p for p in pids_with_env(key, path) if is_alive(p)]
        if not pids:
            break
        signal_pids(pids, signal.SIGCONT)
        signal_pids(pids, signal.SIGKILL)
        killed += len(pids)
        wait_dead(pids, 2.0)
    return killed


def die_with_parent_preexec():
    """preexec_fn that SIGKILLs the child when the spawning thread dies.

    PR_SET_PDEATHSIG fires when the *thread* that forked exits, so only use it when
    spawning from the main thread (returns None otherwise).
    """
    if threading.current_thread() is not threading.main_thread():
        return None
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    parent = os.getpid()

    def _preexec() -> None:
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # parent already gone
            os._exit(1)

    return _preexec
