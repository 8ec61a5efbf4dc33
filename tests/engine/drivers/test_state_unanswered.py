"""A workload's state when the runtime itself does not answer: on the real dockerd taken
down, the read raises the node's "docker unreachable" error, never MISSING (which serve,
the services, the supervisor's install and the router read as "it ended" or "none")."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest

from sparktui.engine.drivers import DOCKER
from sparktui.engine.remote.transport import NodeError, Reason
from sparktui.engine.workloads.leftover import created
from sparktui.plan.runtime.base import Unanswered
from sparktui.plan.runtime.docker import Docker

NAME = "sparktui-never-was"


def _state(s) -> tuple[object, bool]:
    """The driver's state of NAME on node1 (or its error), and leftover's answer."""
    async def go():
        e = s.engine()
        try:
            t = e.transport(s.loaded.config.clusters[0].nodes[0])
            try:
                got: object = await DOCKER.state(t, NAME)
            except NodeError as exc:
                got = exc
            return got, await created(t, "docker", NAME)
        finally:
            await e.close()

    return asyncio.run(go())


def test_a_state_read_beside_a_dead_docker_is_its_error_never_missing(fresh_site):
    s = fresh_site(1)
    got, there = _state(s)
    assert getattr(got, "missing", False) and not there  # docker says: no such container
    s.hosts.node("node1").docker_down()
    try:
        got, there = _state(s)
    finally:
        s.hosts.node("node1").docker_up()
    assert isinstance(got, NodeError), got
    assert got.reason is Reason.DOCKER_UNREACHABLE and got.node == "node1"
    assert "Cannot connect to the Docker daemon" in str(got.detail), got.detail
    assert there  # unknown counts as there: a removal is tried


@pytest.mark.parametrize("client", ["/usr/bin/docker", "/usr/local/bin/docker"])
def test_each_docker_clients_words_for_a_name_it_lacks_read_as_missing(fresh_site, client):
    """Debian's docker.io client and a newer one, against the node's real daemon."""
    if not Path(client).exists():
        pytest.skip(f"no {client}")
    s = fresh_site(1)
    node = s.hosts.node("node1")
    argv = ["sh", "-c", Docker().state_command(NAME)]
    env = {"PATH": f"{Path(client).parent}:/usr/bin:/bin", "DOCKER_HOST": node.daemon.host,
           "HOME": node.env["HOME"]}
    out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert Docker().parse_state(_Out(out)).missing, (out.stderr, out.stdout)
    node.docker_down()
    try:
        out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    finally:
        node.docker_up()
    with pytest.raises(Unanswered, match="Cannot connect to the Docker daemon"):
        Docker().parse_state(_Out(out))


class _Out:
    def __init__(self, done: subprocess.CompletedProcess) -> None:
        self.exit_code, self.stdout, self.stderr = done.returncode, done.stdout, done.stderr


def test_the_router_beside_a_dead_docker_is_unknown_never_missing(fresh_site, capsys):
    """Its state read is the router's node's docker: it did not answer, so whether the
    router runs is unknown (it said "missing": no router)."""
    from sparktui.cli import main

    s = fresh_site(1, extra_toml="[clusters.router]\nport = 30471\n")
    capsys.readouterr()
    main(s.cli("health", "--json"))
    assert json.loads(capsys.readouterr().out)["router"]["state"] == "missing"  # none yet
    s.hosts.node("node1").docker_down()
    try:
        main(s.cli("health", "--json"))
    finally:
        s.hosts.node("node1").docker_up()
    router = json.loads(capsys.readouterr().out)["router"]
    assert router["state"] == "unknown", router
    assert "reason.docker_unreachable" in json.dumps(router["error"]), router
