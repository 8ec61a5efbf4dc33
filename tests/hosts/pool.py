"""Started clusters lent to one test at a time and given back reset (fixtures.py).

Starting a cluster costs a few tenths of a second (keys, sshd processes, stand-ins,
daemons borrowed from the daemon pool and cleaned on return); resetting one costs a few
hundredths (reset.py). A new dockerd costs seconds (start, image load), so idle clusters
give their daemons back before the daemon pool grows past ``MAX_DAEMONS``. A cluster a
test broke (a fault was injected: ``broken``), stopped, or that does not reset cleanly
is stopped and dropped: the next test of that size gets a new one.
"""

from __future__ import annotations

import contextlib
from typing import Any

from . import dockerd
from .cluster import TestCluster

MAX_DAEMONS = 6  # per test process: idle clusters of 1, 2 and 3 nodes side by side


class HostPool:
    """This test process's idle clusters, least recently used first."""

    def __init__(self) -> None:
        self.idle: list[TestCluster] = []
        self.started = 0  # clusters made, for the tests of the pool itself

    def acquire(self, n: int = 2, *, images: Any = None) -> TestCluster:
        """A started cluster of ``n`` nodes: an idle one, else a new one."""
        for cluster in reversed(self.idle):
            if len(cluster.nodes) == n:
                self.idle.remove(cluster)
                if images is not None:
                    cluster.images = images
                    for node in cluster.nodes:
                        node.set_images(images)
                return cluster
        return self.new(n, images=images)

    def new(self, n: int = 2, **kw: Any) -> TestCluster:
        """A new started cluster (the caller stops it, or gives it back by release)."""
        self._make_room(n)
        cluster = TestCluster(n, **kw)
        self.started += 1
        try:
            return cluster.start()
        except BaseException:
            cluster.stop()
            raise

    def release(self, cluster: TestCluster) -> None:
        if not (cluster.broken or cluster.stopped):
            cluster.images = None
            try:
                cluster.reset()
            except Exception:
                cluster.broken = True
        if cluster.broken or cluster.stopped:
            cluster.stop()
            return
        self.idle.append(cluster)

    def _make_room(self, n: int) -> None:
        while self.idle:  # (idle clusters: the daemon pool exists)
            daemons = dockerd.pool()
            short = n - len(daemons.free)
            if short <= 0 or len(daemons.daemons) + short <= MAX_DAEMONS:
                return
            self.idle.pop(0).stop()  # its daemons go back to the daemon pool

    def close(self) -> None:
        for cluster in self.idle:
            with contextlib.suppress(Exception):
                cluster.stop()
        self.idle.clear()
