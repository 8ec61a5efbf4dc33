"""pytest fixtures for the simulated cluster (registered by tests/conftest.py).

``test_cluster`` lends started clusters of the test process's pool (pool.py) and resets
them when the test ends; ``fresh_cluster`` starts clusters of the test's own, for tests
that break their hosts (faults, host keys, power). Every test using either carries the
``hosts`` marker (tests/conftest.py): ``-m "not hosts"`` runs the quick ones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from .cluster import TestCluster
from .pool import HostPool

HOST_FIXTURES = frozenset({"test_cluster", "fresh_cluster", "shared_cluster"})


@pytest.fixture(scope="session")
def host_pool() -> Iterator[HostPool]:
    pool = HostPool()
    try:
        yield pool
    finally:
        pool.close()


@pytest.fixture
def test_cluster(host_pool: HostPool) -> Iterator[Callable[..., TestCluster]]:
    """Factory: ``cluster = test_cluster(n=2, images=None)`` lends a started cluster of
    the pool, reset (``TestCluster.reset``) when the test ends, pass or fail. A test
    that injects a fault gets its cluster stopped instead; one that means to should ask
    for ``fresh_cluster``."""
    lent: list[TestCluster] = []

    def factory(n: int = 2, **kw: Any) -> TestCluster:
        cluster = host_pool.acquire(n, **kw)
        lent.append(cluster)
        return cluster

    yield factory
    for cluster in lent:
        host_pool.release(cluster)


@pytest.fixture
def fresh_cluster(host_pool: HostPool) -> Iterator[Callable[..., TestCluster]]:
    """Factory: ``cluster = fresh_cluster(n=2, images=None)`` starts a cluster of this
    test's own, for tests that break hosts (host keys changed, sshd killed or hung,
    docker down, power cut); every cluster it made is stopped (processes killed, temp
    dir removed) when the test ends, pass or fail."""
    made: list[TestCluster] = []

    def factory(n: int = 2, **kw: Any) -> TestCluster:
        cluster = host_pool.new(n, **kw)
        made.append(cluster)
        return cluster

    yield factory
    for cluster in made:
        cluster.stop()


@pytest.fixture
def shared_cluster(test_cluster: Callable[..., TestCluster]) -> TestCluster:
    """A 2-node cluster of the pool (``test_cluster(2)``)."""
    return test_cluster(2)
