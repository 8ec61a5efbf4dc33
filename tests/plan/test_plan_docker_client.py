"""Every example plan's ``docker run`` argv, parsed by the real docker client (and tmux).

With ``DOCKER_HOST`` at a socket that does not exist, a valid command line gets as
far as connecting and fails with "Cannot connect to the Docker daemon"; a flag the
client does not know fails earlier with "unknown flag" or "invalid argument".
Skipped where no docker client is installed. The tmux runtime's argv is run by
real tmux on a private socket.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from plan_support import DUO, EXAMPLE_CONFIG, EXAMPLE_RECIPES, RECIPES, VLLM_MIN, make_plan

from sparktui.config.loader import load_config, load_recipe
from sparktui.plan.build import build_plan


def docker_client() -> str | None:
    if os.access("/usr/local/bin/docker", os.X_OK):
        return "/usr/local/bin/docker"
    return shutil.which("docker")


DOCKER = docker_client()
needs_docker = pytest.mark.skipif(DOCKER is None, reason="no docker client installed")

BAD = ("unknown flag", "unknown shorthand flag", "invalid argument", "invalid reference format",
       "requires at least")
GOOD = ("Cannot connect to the Docker daemon", "Is the docker daemon running")


def _client_says(argv: list[str], tmp_path: Path) -> str:
    assert DOCKER is not None
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path),
           "DOCKER_HOST": "unix:///nonexistent.sock", "DOCKER_CONFIG": str(tmp_path / "cfg")}
    proc = subprocess.run([DOCKER, *argv[1:]], env=env, capture_output=True, text=True,
                          timeout=30, check=False)
    assert proc.returncode != 0
    return proc.stdout + proc.stderr


DOCKER_RECIPES = [r for r in EXAMPLE_RECIPES
                  if 'runtime = "tmux"' not in (RECIPES / r / "recipe.toml").read_text()]


# Recipes whose services need more than two nodes run on the four-node cluster only.
_WIDE = {"pools-toy", "qwen3-30b-dynamo"}


@needs_docker
@pytest.mark.parametrize(("recipe", "cluster"), [
    (r, c) for r in DOCKER_RECIPES for c in ("2nodes", "4nodes-switch")
    if c == "4nodes-switch" or r not in _WIDE])
def test_example_plans_parse(tmp_path: Path, recipe: str, cluster: str) -> None:
    plan = build_plan(load_config(EXAMPLE_CONFIG), load_recipe(RECIPES / recipe / "recipe.toml"),
                      cluster)
    assert plan.runtime == "docker"
    for node in plan.nodes:
        assert node.launch[0] == "docker"
        said = _client_says(node.launch, tmp_path)
        assert not any(bad in said for bad in BAD), f"{node.name}: {said}"
        # ``--device`` values are checked against the server's OS, which an unreachable
        # daemon cannot report: all flags parsed, then "unknown server OS". Check the rest
        # of the command line without it, all the way to the connection attempt.
        if "--device" in node.launch:
            assert "unknown server OS" in said or any(good in said for good in GOOD), said
            said = _client_says(_without(node.launch, "--device"), tmp_path)
            assert not any(bad in said for bad in BAD), f"{node.name}: {said}"
        assert any(good in said for good in GOOD), f"{node.name}: {said}"


def _without(argv: list[str], flag: str) -> list[str]:
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg == flag:
            skip = True
        else:
            out.append(arg)
    return out


@needs_docker
def test_the_check_can_fail(tmp_path: Path) -> None:
    """The same harness does notice a flag docker does not know."""
    said = _client_says(["docker", "run", "-d", "--gpus", "all", "--no-such-flag", "img"],
                        tmp_path)
    assert "unknown flag" in said


@pytest.mark.skipif(shutil.which("tmux") is None, reason="no tmux installed")
def test_tmux_argv_with_real_tmux(tmp_path: Path) -> None:
    """The tmux runtime's argv, run by real tmux on a private socket: session and env exist."""
    recipe = VLLM_MIN + ('runtime = "tmux"\nentrypoint = ["sh", "-c", "sleep 30"]\n'
                         '[env]\nQUOTED = "a b \'c\' $(d)"\n')
    plan = make_plan(tmp_path, DUO, recipe)
    launch = plan.head.launch
    assert launch[0] == "tmux"
    sock = str(tmp_path / "tmux.sock")
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "TERM": "xterm"}

    def tmux(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["tmux", "-S", sock, *args], env=env, capture_output=True,
                              text=True, timeout=30, check=False)

    try:
        started = tmux(*launch[1:])
        assert started.returncode == 0, started.stderr
        shown = tmux("show-environment", "-t", plan.head.container)
        assert shown.returncode == 0, shown.stderr
        lines = shown.stdout.splitlines()
        assert "SPARKTUI_LABEL_RECIPE=demo" in lines
        assert "SPARKTUI_LABEL_ROLE=head" in lines
        assert "QUOTED=a b 'c' $(d)" in lines
        assert "VLLM_HOST_IP=192.168.7.1" in lines
    finally:
        tmux("kill-server")
