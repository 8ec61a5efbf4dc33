"""The argv that hands the terminal to a node's tmux session (``sparktui tmux``, ``t``)."""

from __future__ import annotations

import os
import shlex
from typing import TYPE_CHECKING

from sparktui.engine.remote.hostkeys import known_hosts_path
from sparktui.plan.runtime.tmux import attach_argv

if TYPE_CHECKING:
    from sparktui.config.models import Config, Node


def tmux_attach_argv(config: Config, node: Node, session: str) -> list[str]:
    """``tmux attach`` on the node: local tmux, or ``ssh -t`` with sparktui's known_hosts
    checked strictly, the way the engine's own connections are."""
    attach = attach_argv(session)
    if node.local:
        return attach
    argv = ["ssh", "-t", "-p", str(node.ssh_port), "-o",
            f"UserKnownHostsFile={known_hosts_path(config)}", "-o", "StrictHostKeyChecking=yes"]
    if config.ssh_key_path:
        argv += ["-i", os.path.expanduser(config.ssh_key_path)]
    return [*argv, f"{config.ssh_user}@{node.ssh_ip}", shlex.join(attach)]
