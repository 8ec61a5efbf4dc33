"""How one node reaches another over the fabric: the ``ssh`` argv a node runs.

Why node to node: an image of 20 GB and a model of 100+ GB cross the 200G fabric between
Sparks, never the operator's laptop link. The node's own OpenSSH client and its user's
``~/.ssh`` (key and known_hosts, set up once, docs/pull.md) carry it: sparktui never
copies a key onto a node. Host keys are checked strictly and nothing prompts
(``BatchMode``): a node that does not trust another is a refusal naming both, never a
hang. Addresses and the user come from the config, whose grammar admits only host names
and addresses (``config/grammar.py``), so they cannot be read as options.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sparktui.config.models import Config, Node

CONNECT_SECONDS = 10
"""How long a node waits for another's SSH handshake before the pair is named."""
CIPHERS = "^aes128-gcm@openssh.com,aes256-gcm@openssh.com"
"""AES-GCM first (``^``: ahead of the client's own list, which stays): with the CPU's AES
instructions an image or model copy costs less CPU than OpenSSH's default
chacha20-poly1305 (benchmarks/bench_pull_image.py)."""


def ssh_options(target: Node) -> list[str]:
    """``ssh`` and its options to reach ``target`` (no destination): also rsync's ``-e``."""
    return ["ssh", "-T", "-p", str(target.ssh_port), "-o", "BatchMode=yes",
            "-o", "StrictHostKeyChecking=yes", "-o", f"ConnectTimeout={CONNECT_SECONDS}",
            "-o", f"Ciphers={CIPHERS}"]


def destination(config: Config, target: Node) -> str:
    """``user@fabric-address`` of ``target``."""
    return f"{config.ssh_user}@{target.fabric_ip}"


def node_to_node_argv(config: Config, target: Node, remote: Sequence[str]) -> list[str]:
    """The argv a node runs to run ``remote`` on ``target``. ssh hands its command to the
    target's shell as one line: ``remote`` is quoted once, here, and the whole argv once
    more where the source node's shell gets it (``argv_command``)."""
    return [*ssh_options(target), destination(config, target), shlex.join(remote)]
