"""A node reaches another over the fabric with its own OpenSSH client (engine/pull/fabric.py):
the argv sparktui hands the source node, run by the real sshd test hosts."""

from __future__ import annotations

import asyncio

import pytest

from sparktui.engine.cluster import ClusterEngine
from sparktui.engine.pull.fabric import node_to_node_argv
from sparktui.engine.remote.transport import argv_command

pytestmark = pytest.mark.hosts


async def _on_node(engine: ClusterEngine, node, argv: list[str]):
    transport = engine.transport(node)
    try:
        return await transport.run(argv_command(argv), timeout=30)
    finally:
        await engine.close()


def test_a_trusted_node_runs_a_command_on_another(site):
    s = site(2)
    config = s.loaded.config
    node1, node2 = config.clusters[0].ranked
    s.hosts.trust_nodes()
    argv = node_to_node_argv(config, node2, ["sh", "-c", 'echo "$SPARKTUI_NODE_NAME" "$1"',
                                             "sh", "it's; $(not run)"])
    done = asyncio.run(_on_node(s.engine(), node1, argv))
    assert done.ok, done.stderr
    # the target answered, and the odd argument arrived as one word, never run
    assert done.stdout.strip() == "node2 it's; $(not run)"


def test_an_untrusted_node_is_refused_without_a_prompt(site):
    s = site(2)
    config = s.loaded.config
    node1, node2 = config.clusters[0].ranked
    argv = node_to_node_argv(config, node2, ["true"])
    done = asyncio.run(_on_node(s.engine(), node1, argv))
    assert not done.ok
    assert "Host key verification failed" in done.stderr
