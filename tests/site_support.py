"""A sparktui config on the sshd test hosts (the ``site`` fixture, registered by
tests/conftest.py) and the helpers of the tests that use it: engine and dashboard alike
run sparktui's real asyncssh engine against them."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from sparktui.config.loaded import LoadedConfig
from sparktui.config.loader import load_config, load_recipe
from sparktui.engine.api import Progress
from sparktui.engine.cluster import ClusterEngine
from sparktui.engine.remote.hostkeys import init_host_keys
from sparktui.plan.build import build_plan
from sparktui.plan.model import LaunchPlan


@dataclass
class Site:
    """A started test cluster with a sparktui config whose host keys are recorded."""

    hosts: object
    root: Path
    config_path: Path
    loaded: LoadedConfig
    recipes: Path

    def recipe(self, name: str, text: str) -> Path:
        path = self.recipes / name / "recipe.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def plan(self, name: str, cluster: str | None = None) -> LaunchPlan:
        return build_plan(self.loaded, load_recipe(self.recipes / name / "recipe.toml"), cluster)

    def engine(self) -> ClusterEngine:
        return ClusterEngine(self.loaded.config)

    def cli(self, *args: str) -> list[str]:
        return ["--config", str(self.config_path), "--recipes", str(self.recipes), *args]


def toy_recipe(engine: str = "vllm", nodes: int = 2, port: int = 30011, extra: str = "",
               env: str = "") -> str:
    lines = [f'engine = "{engine}"', 'docker_image = "vllm:test"', 'model = "org/toy"',
             f"port = {port}", f"required_nodes = {nodes}", f"tensor_parallel_size = {nodes}",
             'entrypoint = ["vllm", "serve"]' if engine == "vllm"
             else 'entrypoint = ["python3", "-m", "sglang.launch_server"]', extra]
    text = "\n".join(line for line in lines if line) + "\n"
    if env:
        text += "\n[env]\n" + env + "\n"
    return text


def _site_factory(clusters: Callable[..., Any], tmp_path: Path) -> Callable[..., Site]:
    def make(n: int = 2, extra_toml: str = "", top: str = "") -> Site:
        hosts = clusters(n)
        config_path = hosts.write_config(tmp_path / "config.toml", extra_toml=extra_toml)
        # Top-level keys must precede the first table, so they go in front; ``top``
        # ("key = value" lines) adds to or overrides these.
        keys = {"health_timeout_seconds": "5", "connect_timeout_seconds": "10",
                "command_timeout_seconds": "15", "ready_timeout_seconds": "20"}
        keys.update(line.split(" = ", 1) for line in top.splitlines() if " = " in line)
        _prepend_top_level(config_path, "".join(f"{k} = {v}\n" for k, v in keys.items()))
        loaded = load_config(config_path)
        results = asyncio.run(init_host_keys(loaded.config, loaded.config.clusters[0].nodes))
        assert all(r.outcome == "new" for r in results), results
        recipes = tmp_path / "recipes"
        recipes.mkdir()
        return Site(hosts, tmp_path, config_path, loaded, recipes)
    return make


@pytest.fixture
def site(test_cluster, tmp_path) -> Callable[..., Site]:
    """Factory: ``site(n=2, extra_toml="", top="")`` on hosts lent by the pool."""
    return _site_factory(test_cluster, tmp_path)


@pytest.fixture
def fresh_site(fresh_cluster, tmp_path) -> Callable[..., Site]:
    """``site`` on hosts of the test's own, for tests that break them (faults)."""
    return _site_factory(fresh_cluster, tmp_path)


TASK_DUMP = """
import asyncio, runpy, signal, sys

def dump(*_):
    for task in asyncio.all_tasks():
        task.print_stack(file=sys.stderr)

signal.signal(signal.SIGUSR1, dump)
sys.argv[0] = "sparktui"
runpy.run_module("sparktui", run_name="__main__", alter_sys=True)
"""
"""``python -m sparktui`` that prints every asyncio task's stack on SIGUSR1."""


def sparktui_process(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """``python -m sparktui ARGS`` with pipes, the fault handler on and the task dump, so
    that a hang can be made to show where it is (``interrupt``)."""
    return subprocess.Popen([sys.executable, "-c", TASK_DUMP, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env={**(env or os.environ), "PYTHONFAULTHANDLER": "1"})


def interrupt(proc: subprocess.Popen[str], seconds: float = 60.0) -> tuple[int, str]:
    """Ctrl+C ``proc`` and wait for it: (exit code, stderr). A process still there after
    ``seconds`` (a bound on a hang, never a speed goal) fails the test with every
    asyncio task's stack and every thread's (SIGABRT makes the fault handler print)."""
    proc.send_signal(signal.SIGINT)
    try:
        code = proc.wait(seconds)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGUSR1)  # the tasks' stacks, then the threads'
        time.sleep(2)
        proc.send_signal(signal.SIGABRT)
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
        raise AssertionError(f"still running {seconds:g} s after Ctrl+C:\n{err}") from None
    return code, proc.stderr.read() if proc.stderr is not None else ""


class Lines:
    """A process's stdout read on a thread, so a test can wait for a line and the pipe
    never fills."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self._thread.start()

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            self.lines.append(line)

    def text(self) -> str:
        return "".join(self.lines)


def requests_served(engine: str) -> float:
    """Requests the test engine at ``engine`` has answered (vLLM's request_success_total)."""
    with urllib.request.urlopen(f"{engine}/metrics", timeout=30) as answer:
        return sum(float(line.rsplit(" ", 1)[1]) for line in answer.read().decode().splitlines()
                   if line.startswith("vllm:request_success_total"))


def _prepend_top_level(path: Path, text: str) -> None:
    path.write_text(text + path.read_text())


class Recorder:
    def __init__(self) -> None:
        self.events: list[Progress] = []

    def __call__(self, event: Progress) -> None:
        self.events.append(event)

    def steps(self, state: str) -> list[tuple[str | None, str]]:
        return [(e.node, e.step) for e in self.events if e.state == state]
