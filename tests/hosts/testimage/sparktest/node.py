"""Which simulated node this process runs on, and where the test's knobs are.

On a real cluster each node is its own machine; here every node shares this machine's
network, so the test daemons' runtime wrapper (tests/hosts/dockerd.py) tells each
container its node's address and mounts the node's state folder (read-only) where the
test writes knobs such as engine.json and gpu.json.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
import threading
from pathlib import Path

ADDR = os.environ.get("SPARKTUI_NODE_ADDR", "127.0.0.1")
NAME = os.environ.get("SPARKTUI_NODE_NAME", "node")
STATE = Path(os.environ.get("SPARKTUI_NODE_STATE", "/nonexistent"))
HOST_NETWORK = os.environ.get("SPARKTEST_HOST_NETWORK", "1") == "1"
_LOCK = threading.Lock()


def bind_host(requested: str | None) -> str:
    """Where a server asked to listen on ``requested`` binds: a wildcard in the host's
    network would take the port on every simulated node at once, so it becomes this
    node's own address there (in a container's own network it stays as asked)."""
    if requested in (None, "", "0.0.0.0", "::") and HOST_NETWORK:
        return ADDR
    return requested or "0.0.0.0"


def knobs(name: str) -> dict:
    """The node's ``name`` file (engine.json, gpu.json), re-read on every call."""
    try:
        data = json.loads((STATE / name).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def ts() -> str:
    return dt.datetime.now().strftime("%m-%d %H:%M:%S")


def out(line: str) -> None:
    """One whole line to stdout (docker's log), never interleaved with another thread's."""
    with _LOCK:
        os.write(1, (line + "\n").encode())


def finish(code: int) -> None:
    sys.stdout.flush()
    os._exit(code)


def opt(argv: list[str], *names: str) -> str | None:
    """The value of the first of ``names`` in argv (``--x v`` or ``--x=v``)."""
    for i, tok in enumerate(argv):
        for name in names:
            if tok == name and i + 1 < len(argv):
                return argv[i + 1]
            if tok.startswith(name + "="):
                return tok.split("=", 1)[1]
    return None
