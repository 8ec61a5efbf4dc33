"""Shared pytest setup: registers the real-SSH test host fixtures (tests/hosts)."""

from hosts.fixtures import _shared_test_cluster_session, shared_cluster, test_cluster

__all__ = ["_shared_test_cluster_session", "shared_cluster", "test_cluster"]


import pytest


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Keep the plan cache of each test away from the operator's ~/.cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
