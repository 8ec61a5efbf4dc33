"""The argv that hands the terminal to a program on a node: a tmux session (``sparktui
tmux``, ``t``) or a shell in a container (``sparktui shell``, ``a``)."""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING

from sparktui.engine.remote.hostkeys import known_hosts_path
from sparktui.plan.runtime.docker import exec_argv
from sparktui.plan.runtime.tmux import attach_argv

if TYPE_CHECKING:
    from sparktui.config.models import Config, Node


def terminal_argv(config: Config, node: Node, remote: list[str], *, tty: bool = True
                  ) -> list[str]:
    """``remote`` on the node: run locally, or over ``ssh`` (``-t`` for a terminal, else
    ``-T``) with sparktui's known_hosts checked strictly, the way the engine's own
    connections are. ssh's remote command is a shell line: ``remote`` is quoted once, here."""
    if node.local:
        return remote
    argv = ["ssh", "-t" if tty else "-T", "-p", str(node.ssh_port), "-o",
            f"UserKnownHostsFile={known_hosts_path(config)}", "-o", "StrictHostKeyChecking=yes"]
    if config.ssh_key_path:
        argv += ["-i", os.path.expanduser(config.ssh_key_path)]
    return [*argv, f"{config.ssh_user}@{node.ssh_ip}", shlex.join(remote)]


def tmux_attach_argv(config: Config, node: Node, session: str) -> list[str]:
    """``tmux attach`` on the node."""
    return terminal_argv(config, node, attach_argv(session))


def docker_shell_argv(config: Config, node: Node, container: str,
                      command: Sequence[str] = (), *, tty: bool = True) -> list[str]:
    """``docker exec -it CONTAINER`` a shell (bash if present, else sh) or ``command``
    on the node; without a terminal (``tty=False``), ``-i`` only."""
    return terminal_argv(config, node, exec_argv(container, command, tty=tty), tty=tty)
