"""Shared pytest setup: registers the real-SSH test host fixtures (tests/hosts)."""

from hosts.fixtures import _shared_test_cluster_session, shared_cluster, test_cluster

__all__ = ["_shared_test_cluster_session", "shared_cluster", "test_cluster"]
