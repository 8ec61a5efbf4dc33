"""serve's port preflight when the probe gives no answer: the head's sshd will not open
the channel, or the connection attempt is never answered. Either fails the preflight
naming the node and the port, before anything starts: a failed check is never read as a
free port (ports.py)."""

from __future__ import annotations

import socket

from lookalike import Why
from site_support import toy_recipe

from sparktui.cli import main

# A look-alike, not the real vLLM (tests/lookalike.py): only the preflight runs.
LOOKALIKE = (Why.SPEED,)


def _nothing_started(s) -> None:
    for node in ("node1", "node2"):
        assert not any(a[:2] == ["docker", "run"] for a in s.hosts.recorded_docker(node))
        assert s.hosts.ssh(node, "docker ps -a --format '{{.Names}}'").stdout.split() == []


def test_forwarding_prohibited_on_the_head_fails_preflight(site, capsys):
    """sshd's ``PermitOpen none``: the probe's channel is "administratively prohibited",
    which says nothing about the port (the docker socket's stream-local forwarding stays
    on, so the rest of serve would work). Not ``AllowTcpForwarding no``: sshd keeps the
    first value of an option, and the test hosts' config says ``yes`` before it."""
    s = site(2)
    s.recipe("toy", toy_recipe(port=30051))
    s.hosts.node("node1").reconfigure("PermitOpen none")
    assert main(s.cli("serve", "toy")) == 1
    err = capsys.readouterr().err
    assert "could not check whether port 30051 on node1" in err
    assert "administratively prohibited" in err
    _nothing_started(s)


def test_probe_that_times_out_fails_preflight(site, capsys):
    """A listener whose accept queue is full: Linux drops further SYNs, so the probe
    through the head's sshd is neither accepted nor refused and times out (5 s)."""
    s = site(2)
    s.recipe("toy", toy_recipe(port=30052))
    addr = (s.hosts.node("node1").addr, 30052)
    full = socket.socket()
    full.bind(addr)
    full.listen(0)
    queued = socket.create_connection(addr)  # fills the queue of one: never accepted
    try:
        assert main(s.cli("serve", "toy")) == 1
    finally:
        queued.close()
        full.close()
    err = capsys.readouterr().err
    assert "could not check whether port 30052 on node1" in err and "timeout" in err
    _nothing_started(s)
