"""pytest fixtures for the simulated cluster (registered by tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from .cluster import TestCluster


@pytest.fixture
def test_cluster() -> Iterator[Callable[..., TestCluster]]:
    """Factory: ``cluster = test_cluster(n=2, images=None)`` starts a fresh cluster.

    Every cluster made by the factory is stopped (processes killed, temp dir removed) when
    the test ends, pass or fail.
    """
    made: list[TestCluster] = []

    def factory(n: int = 2, **kw: Any) -> TestCluster:
        cluster = TestCluster(n, **kw)
        made.append(cluster)
        return cluster.start()

    yield factory
    for cluster in made:
        cluster.stop()


@pytest.fixture(scope="session")
def _shared_test_cluster_session() -> Iterator[TestCluster]:
    cluster = TestCluster(2)
    try:
        yield cluster.start()
    finally:
        cluster.stop()


@pytest.fixture
def shared_cluster(_shared_test_cluster_session: TestCluster) -> TestCluster:
    """A session-wide 2-node cluster, reset() before each test that uses it (cheaper than
    a fresh cluster; do not use it for host-key rotation tests)."""
    _shared_test_cluster_session.reset()
    return _shared_test_cluster_session
