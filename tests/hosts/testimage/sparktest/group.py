"""A group's rendezvous, as torch.distributed / NCCL and Ray do it, over plain TCP.

The head listens on its rendezvous address; each worker connects, says its rank and
holds the connection for its life. A worker whose connection ends (the head is gone)
returns from ``join_group`` and exits like a rank that lost its group; the head sees a
worker go the same way.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable


def _split(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    return host.strip("[]"), int(port)


def join_group(address: str, rank: int) -> None:
    """Connect to the head (retrying while it is not up yet); return when it goes."""
    host, port = _split(address)
    while True:
        try:
            sock = socket.create_connection((host, port), timeout=2)
            break
        except OSError:
            time.sleep(0.2)
    with sock:
        sock.settimeout(None)
        sock.sendall(f"{rank}\n".encode())
        with contextlib.suppress(OSError):
            while sock.recv(4096):
                pass


class GroupHead:
    """Listens at ``address``; ``gone(rank)`` is called for each worker that leaves."""

    def __init__(self, address: str, nnodes: int,
                 gone: Callable[[int], None] | None = None) -> None:
        host, port = _split(address)
        self.nnodes = nnodes
        self.gone = gone
        self.members: dict[int, socket.socket] = {}
        self.joined = threading.Condition()
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind((host, port))
        self.server.listen(64)
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            conn, _ = self.server.accept()
            with contextlib.suppress(OSError, ValueError):
                conn.settimeout(5)
                rank = int(conn.recv(64).split(b"\n")[0])
                conn.settimeout(None)
                with self.joined:
                    self.members[rank] = conn
                    self.joined.notify_all()
                threading.Thread(target=self._hold, args=(rank, conn), daemon=True).start()

    def _hold(self, rank: int, conn: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while conn.recv(4096):
                pass
        with self.joined:
            self.members.pop(rank, None)
        if self.gone is not None:
            self.gone(rank)

    def count(self) -> int:
        """Members alive, the head included."""
        with self.joined:
            return 1 + len(self.members)

    def wait_for_workers(self) -> None:
        with self.joined:
            self.joined.wait_for(lambda: len(self.members) >= self.nnodes - 1)
