"""Every service instance's ``docker run`` argv in the example recipes, parsed by the real
docker client (the harness of test_plan_docker_client), and its tmux argv by real tmux."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from plan_support import EXAMPLE_CONFIG, RECIPES, make_plan
from services_support import QUAD, SERVICES_ONLY, svc
from test_plan_docker_client import BAD, GOOD, _client_says, needs_docker

from sparktui.config.loader import load_config, load_recipe
from sparktui.plan.build import build_plan

SERVICE_RECIPES = ["pools-toy", "qwen3-30b-dynamo"]


@needs_docker
@pytest.mark.parametrize("recipe", SERVICE_RECIPES)
def test_service_argv_parses(tmp_path: Path, recipe: str) -> None:
    plan = build_plan(load_config(EXAMPLE_CONFIG), load_recipe(RECIPES / recipe / "recipe.toml"))
    instances = [i for s in plan.services for i in s.instances]
    assert instances
    for inst in instances:
        said = _client_says(inst.launch, tmp_path)
        assert not any(bad in said for bad in BAD), f"{inst.container}: {said}"
        assert any(good in said for good in GOOD), f"{inst.container}: {said}"


@pytest.mark.skipif(shutil.which("tmux") is None, reason="no tmux installed")
def test_tmux_service_with_real_tmux(tmp_path: Path) -> None:
    recipe = SERVICES_ONLY + svc('runtime = "tmux"\ncommand = ["sh", "-c", "sleep 30"]\n'
                                 'env = { WHO = "{node} {index}" }\n', name="s")
    inst = make_plan(tmp_path, QUAD, recipe).services[0].instances[0]
    sock = str(tmp_path / "tmux.sock")
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "TERM": "xterm"}

    def tmux(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["tmux", "-S", sock, *args], env=env, capture_output=True,
                              text=True, timeout=30, check=False)

    try:
        started = tmux(*inst.launch[1:])
        assert started.returncode == 0, started.stderr
        lines = tmux("show-environment", "-t", inst.container).stdout.splitlines()
        assert "SPARKTUI_LABEL_SERVICE=s" in lines
        assert "SPARKTUI_LABEL_ROLE=service" in lines
        assert "WHO=n0 0" in lines
    finally:
        tmux("kill-server")
