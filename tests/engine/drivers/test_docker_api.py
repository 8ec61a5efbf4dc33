"""docker's reads through the node's Docker engine API (engine/drivers/docker_api.py),
on the real sshd and dockerd: the answers the CLI gives, no docker process on the node
for them, and the CLI again whenever the API cannot answer."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess

import pytest
from engine.workloads.test_logs_local import LOCAL_CONFIG
from lookalike import Why
from site_support import toy_recipe

from sparktui.cli import main
from sparktui.config.loader import load_config
from sparktui.engine.drivers.docker_api import docker_image_id, docker_listing, docker_state
from sparktui.engine.remote.local import LocalTransport
from sparktui.engine.workloads.discover import list_node
from sparktui.plan.runtime.base import MISSING
from sparktui.plan.runtime.docker import ENDPOINT, Docker, socket_path

# A look-alike, not the real vLLM (tests/lookalike.py): docker's reads over a serve per test; 2-node
# groups.
LOOKALIKE = (Why.SPEED, Why.MULTI_NODE)

EXITED = "sparktui-gone-head"


def _leave_an_exited_container(s, node: str) -> None:
    """A labelled container that ended with 3, as a failed serve leaves one."""
    got = s.hosts.node(node).docker(
        "run", "-d", "--name", EXITED, "--label", "sparktui.recipe=gone",
        "--label", "sparktui.role=head", "--entrypoint", "sh", "vllm:test", "-c", "exit 3")
    assert got.returncode == 0, got.stderr
    got = s.hosts.node(node).docker("wait", EXITED)
    assert got.stdout.strip() == "3", got


async def _cli_answers(t, names: list[str]):
    docker = Docker()
    listing = docker.parse_list((await t.run(docker.list_command())).stdout)
    states = {}
    for name in names:
        out = await t.run(docker.state_command(name))
        states[name] = docker.parse_state(out)
    return listing, states


def test_the_api_answers_what_the_cli_answers(site):
    s = site(2)
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0
    _leave_an_exited_container(s, "node1")
    names = ["sparktui-toy", EXITED, "sparktui-never-was"]

    async def go():
        e = s.engine()
        try:
            t = e.transport(s.loaded.config.clusters[0].nodes[0])
            api = await docker_listing(t)
            states = {name: await docker_state(t, name) for name in names}
            images = [await docker_image_id(t, ref) for ref in ("vllm:test", "no-such:image")]
            cli_image = (await t.run(Docker().image_id_command("vllm:test"))).stdout.strip()
            return api, states, images, cli_image, await _cli_answers(t, names)
        finally:
            await e.close()

    api, states, images, cli_image, (cli, cli_states) = asyncio.run(go())
    # an image that is not there is left to the CLI, which says so in its own words
    assert images == [cli_image, None] and cli_image.startswith("sha256:")
    assert api is not None and api.error is None
    by_name = sorted(api.found, key=lambda f: f.name)
    assert by_name == sorted(cli.found, key=lambda f: f.name)
    assert [f.name for f in by_name] == [EXITED, "sparktui-toy"]
    gone = by_name[0]
    assert (gone.state, gone.exit_code, gone.status) == ("exited", 3, "exited (3)")
    assert by_name[1].started_at and by_name[1].argv[:2] == ("vllm", "serve")
    assert states == cli_states
    assert states[EXITED].exit_code == 3 and states["sparktui-never-was"].status == MISSING
    assert main(s.cli("stop", "--yes")) == 0


def test_a_health_check_starts_no_docker_process_on_the_node(site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0

    async def twice():
        e = s.engine()
        try:
            before = {n: len(s.hosts.recorded_docker(n)) for n in ("node1", "node2")}
            first = await e.health("test")
            second = await e.health("test")
            return first, second, before
        finally:
            await e.close()

    first, second, before = asyncio.run(twice())
    assert first.serving and second.serving
    for node in ("node1", "node2"):
        # neither check started docker's CLI: the socket is the node's $DOCKER_HOST (its
        # sshd sets it), read by the shell; the containers came from the API
        assert s.hosts.recorded_docker(node)[before[node]:] == []
    rows = {n.node: n for n in second.nodes}
    assert [w.name for w in rows["node1"].workloads] == ["sparktui-toy"]
    assert rows["node1"].engines and rows["node1"].engines[0].ready
    assert main(s.cli("stop", "--yes")) == 0


def test_a_node_that_refuses_stream_forwarding_is_read_through_the_cli(fresh_site, capsys):
    s = fresh_site(2)
    s.hosts.node("node2").reconfigure("AllowStreamLocalForwarding no")
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0
    before = len(s.hosts.recorded_docker("node2"))

    async def go():
        e = s.engine()
        try:
            t = e.transport(s.loaded.config.clusters[0].nodes[1])
            return await docker_listing(t), await list_node(t)
        finally:
            await e.close()

    api, found = asyncio.run(go())
    assert api is None  # the API could not answer: the CLI was asked, never "nothing"
    assert [(w.name, w.role) for w in found.workloads] == [("sparktui-toy", "worker")]
    asked = [a[:3] for a in s.hosts.recorded_docker("node2")[before:]]
    assert ["docker", "ps", "-aq"] in asked
    capsys.readouterr()
    assert main(s.cli("health")) == 0
    node2 = [line for line in capsys.readouterr().out.splitlines() if "node2" in line]
    assert node2 and not any("unreachable" in line for line in node2), node2
    assert main(s.cli("stop", "--yes")) == 0


def test_the_local_node_reads_its_docker_through_the_socket_too(test_cluster, tmp_path,
                                                                monkeypatch):
    # The built-in local node runs without SSH: the API is its own Unix socket.
    node = test_cluster(1).nodes[0]  # borrowed for its dockerd only
    got = node.docker("run", "-d", "--name", "sparktui-here", "--label", "sparktui.recipe=here",
                      "--label", "sparktui.role=head", "busybox:1", "sleep", "600")
    assert got.returncode == 0, got.stderr
    monkeypatch.setenv("DOCKER_HOST", node.daemon.host)
    monkeypatch.setenv("PATH", f"{node.cluster.bin_dir}:{os.environ['PATH']}")
    monkeypatch.setenv("SPARKTUI_NODE_STATE", str(node.state_dir))  # the recorder's
    config = tmp_path / "config.toml"
    config.write_text(LOCAL_CONFIG)
    loaded = load_config(config).config
    t = LocalTransport(loaded.clusters[0].nodes[0], loaded)

    async def go():
        first = await docker_listing(t)
        before = len(node.recorded_docker())
        found = await list_node(t)
        state = await docker_state(t, "sparktui-here")
        return first, found, state, node.recorded_docker()[before:]

    first, found, state, asked = asyncio.run(go())
    assert first is not None and [f.name for f in first.found] == ["sparktui-here"]
    assert [w.name for w in found.workloads] == ["sparktui-here"] and state.running
    assert asked == []  # the socket was asked for once; then no docker process at all


def _endpoint(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``ENDPOINT`` as a node's shell runs it, with only ``env`` (and this PATH, for
    the real docker client)."""
    return subprocess.run(["sh", "-c", ENDPOINT], env={"PATH": os.environ["PATH"], **env},
                          capture_output=True, text=True, timeout=60, check=False)


def test_the_socket_is_the_one_the_docker_cli_would_choose(tmp_path):
    # Each case against what `docker context inspect` (the real client) says.
    if not shutil.which("docker"):
        pytest.fail("the docker client is not installed") if os.environ.get("CI") == "true" \
            else pytest.skip("no docker client")
    home = tmp_path / "home"
    home.mkdir()
    config = tmp_path / "docker-config"
    made = subprocess.run(["docker", "context", "create", "spk", "--docker",
                           "host=unix:///tmp/spk-ctx.sock"],
                          env={"PATH": os.environ["PATH"], "HOME": str(home),
                               "DOCKER_CONFIG": str(config)},
                          capture_output=True, text=True, timeout=60, check=False)
    assert made.returncode == 0, made.stderr
    cases = [
        {"HOME": str(home)},  # nothing set: the default socket
        {"HOME": str(home), "DOCKER_HOST": "unix:///tmp/spk-env.sock"},
        {"HOME": str(home), "DOCKER_HOST": "tcp://10.0.0.1:2375"},  # not a socket
        {"HOME": str(home), "DOCKER_CONFIG": str(config), "DOCKER_CONTEXT": "spk"},
        {"HOME": str(home), "DOCKER_CONFIG": str(config), "DOCKER_CONTEXT": "default",
         "DOCKER_HOST": "unix:///tmp/spk-env.sock"},
    ]
    for env in cases:
        cli = subprocess.run(["docker", "context", "inspect", "--format",
                              "{{.Endpoints.docker.Host}}"],
                             env={"PATH": os.environ["PATH"], **env},
                             capture_output=True, text=True, timeout=60, check=False)
        assert cli.returncode == 0, (env, cli.stderr)
        assert _endpoint(env).stdout == cli.stdout, env
    # a context chosen with `docker context use` (config.json): the CLI says
    used = {"PATH": os.environ["PATH"], "HOME": str(home), "DOCKER_CONFIG": str(config)}
    assert subprocess.run(["docker", "context", "use", "spk"], env=used,
                          capture_output=True, timeout=60, check=False).returncode == 0
    assert _endpoint(used).stdout.strip() == "unix:///tmp/spk-ctx.sock"
    assert socket_path(_endpoint(used).stdout) == "/tmp/spk-ctx.sock"
    # a context that does not exist: no answer, so the reads go to the CLI, which says why
    broken = _endpoint({"HOME": str(home), "DOCKER_CONTEXT": "gone"})
    assert broken.returncode != 0 and socket_path(broken.stdout) is None
