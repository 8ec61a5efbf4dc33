"""Shared pytest setup: registers the real-SSH test host fixtures (tests/hosts) and the
sparktui site built on them (site_support.py)."""

from hosts.fixtures import _shared_test_cluster_session, shared_cluster, test_cluster
from site_support import site

__all__ = ["_shared_test_cluster_session", "shared_cluster", "site", "test_cluster"]
