"""Helpers shared by the config, plan and CLI tests: TOML fixtures in tmp dirs.

Every fixture file is written to ``tmp_path``; expected line numbers are computed
from the text actually written (``line_of``), so a test cannot pass by accident.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from sparktui.config.loaded import LoadedConfig, LoadedRecipe
from sparktui.config.loader import load_config, load_recipe
from sparktui.errors import SparkError
from sparktui.plan.build import build_plan
from sparktui.plan.model import LaunchPlan

REPO = Path(__file__).resolve().parent.parent
EXAMPLE_CONFIG = REPO / "examples" / "config.toml"
RECIPES = REPO / "recipes"
EXAMPLE_RECIPES = sorted(p.parent.name for p in RECIPES.glob("*/recipe.toml"))

# Two nodes that are reached over SSH, a fabric, cluster hooks: the common case.
DUO = """\
ssh_user = "ops"

[[clusters]]
name = "duo"
master_ib_ip = "192.168.7.1"
nodes = [
  { name = "alpha", ssh_ip = "10.9.0.1", ib_ip = "192.168.7.1", rank = 0, entity = "switch.alpha" },
  { name = "beta", ssh_ip = "10.9.0.2", ib_ip = "192.168.7.2", rank = 1, ssh_port = 2222 },
]

[nccl."duo"]
ib_hca = "mlx5_0,mlx5_1"
socket_ifname = "enp1s0f1np1"
ib_gid_index = 3
"""

VLLM_MIN = """\
engine = "vllm"
docker_image = "img:1"
model = "org/model"
"""


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def config_file(tmp_path: Path, text: str, name: str = "config.toml") -> Path:
    return write(tmp_path / name, dedent(text))


def recipe_file(tmp_path: Path, text: str, name: str = "demo") -> Path:
    return write(tmp_path / "recipes" / name / "recipe.toml", dedent(text))


def load_cfg(tmp_path: Path, text: str) -> LoadedConfig:
    return load_config(config_file(tmp_path, text))


def load_rec(tmp_path: Path, text: str, name: str = "demo") -> LoadedRecipe:
    return load_recipe(recipe_file(tmp_path, text, name))


def make_plan(tmp_path: Path, config_text: str, recipe_text: str,
              cluster: str | None = None) -> LaunchPlan:
    return build_plan(load_cfg(tmp_path, config_text), load_rec(tmp_path, recipe_text), cluster)


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """1-based number of the line holding the ``occurrence``-th ``needle``."""
    seen = 0
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            seen += 1
            if seen == occurrence:
                return number
    raise AssertionError(f"{needle!r} not found {occurrence} time(s) in fixture")


def problem_of(action: Callable[[], object]) -> SparkError:
    with pytest.raises(SparkError) as info:
        action()
    return info.value


def subprocess_env(**extra: str) -> dict[str, str]:
    """Environment for ``python -m sparktui``: this checkout importable, English, no config."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SPARKTUI_", "LC_", "LANG"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env["LANGUAGE"] = "en"
    env.update(extra)
    return env


def run_module(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sparktui", *args], cwd=cwd,
                          env=subprocess_env(**env), capture_output=True, text=True,
                          timeout=60, check=False)
