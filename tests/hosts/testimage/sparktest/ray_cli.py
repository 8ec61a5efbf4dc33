"""``ray start``: a head that workers join, and ``--block`` workers that hold on to it.

``ray start --head`` leaves a small daemon behind in the container (like Ray's raylet)
that counts the members in /tmp/ray/nodes, which the fake ``ray`` module's ``nodes()``
reads; ``ray start --block --address=H:P`` joins and returns only when the head goes.
"""

from __future__ import annotations

import os
import sys
import time

from sparktest.group import GroupHead, join_group
from sparktest.node import ADDR, finish, opt, out, ts

NODES_FILE = "/tmp/ray/nodes"


def main(argv: list[str]) -> None:
    if argv[:1] != ["start"]:
        out(f"ray: only `ray start` is played here, not {argv[:1]}")
        finish(2)
    args = argv[1:]
    ip = opt(args, "--node-ip-address") or ADDR
    if "--head" in args:
        port = opt(args, "--port") or "6379"
        if os.fork() == 0:
            os.setsid()
            _head_daemon(f"{ip}:{port}")
        time.sleep(0.2)
        out("Ray runtime started.")
        out(f"  Local node IP: {ip}")
        finish(0)
    address = opt(args, "--address") or ""
    out(f"{ts()} ray: joining the Ray cluster at {address} as {ip}")
    if "--block" not in args:
        finish(0)
    out("Ray runtime started.")
    out("--block: this command will block forever until terminated.")
    join_group(address, os.getpid())
    out("Some Ray subprocesses exited unexpectedly: the head node is gone.")
    finish(1)


def _head_daemon(address: str) -> None:
    os.makedirs(os.path.dirname(NODES_FILE), exist_ok=True)
    head = GroupHead(address, 1)
    while True:
        tmp = NODES_FILE + ".tmp"
        with open(tmp, "w") as f:
            f.write(str(head.count()))
        os.replace(tmp, NODES_FILE)
        time.sleep(0.2)


if __name__ == "__main__":
    main(sys.argv[1:])
