"""Real SSH test hosts for sparktui's engine tests: see README.md in this folder."""

from .cluster import TestCluster, require_sshd
from .sshd import HostStartError, Node

__all__ = ["HostStartError", "Node", "TestCluster", "require_sshd"]
