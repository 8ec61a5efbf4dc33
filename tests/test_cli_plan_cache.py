"""The plan cache: byte-identical inputs reuse the output without loading pydantic;
any change to an input is a miss."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE = """
import sys
from sparktui.cli import main
code = main(sys.argv[1:])
print("PYDANTIC" if "pydantic" in sys.modules else "NO-PYDANTIC", file=sys.stderr)
raise SystemExit(code)
"""


def _plan(tmp_path: Path, config: Path, recipes: Path, *extra: str, env: dict | None = None):
    environ = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"),
               "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-c", PROBE, "--config", str(config), "--recipes",
                           str(recipes), "plan", "toy", "-f", "json", *extra],
                          capture_output=True, text=True, env=environ, timeout=60)


def _site(tmp_path: Path) -> tuple[Path, Path]:
    config = tmp_path / "config.toml"
    config.write_text('[[clusters]]\nname = "one"\nnodes = [{ name = "n1", ssh_ip = "192.0.2.1",'
                      ' rank = 0 }]\n')
    recipe = tmp_path / "recipes" / "toy" / "recipe.toml"
    recipe.parent.mkdir(parents=True)
    recipe.write_text('engine = "vllm"\ndocker_image = "img:1"\nmodel = "m"\n')
    return config, recipe.parent.parent


def test_second_identical_plan_is_served_without_pydantic(tmp_path):
    config, recipes = _site(tmp_path)
    first = _plan(tmp_path, config, recipes)
    second = _plan(tmp_path, config, recipes)
    assert first.returncode == second.returncode == 0
    assert "NO-PYDANTIC" not in first.stderr
    assert "NO-PYDANTIC" in second.stderr
    assert first.stdout == second.stdout and '"image": "img:1"' in first.stdout


def test_a_changed_recipe_or_config_is_a_miss(tmp_path):
    config, recipes = _site(tmp_path)
    assert _plan(tmp_path, config, recipes).returncode == 0
    recipe = recipes / "toy" / "recipe.toml"
    recipe.write_text(recipe.read_text().replace("img:1", "img:2"))
    again = _plan(tmp_path, config, recipes)
    assert '"image": "img:2"' in again.stdout and "NO-PYDANTIC" not in again.stderr
    config.write_text(config.read_text().replace("192.0.2.1", "192.0.2.9"))
    third = _plan(tmp_path, config, recipes)
    assert '"ssh_ip": "192.0.2.9"' in third.stdout and "NO-PYDANTIC" not in third.stderr


def test_errors_are_not_cached_and_the_cache_can_be_off(tmp_path):
    config, recipes = _site(tmp_path)
    (recipes / "toy" / "recipe.toml").write_text('engine = "vllm"\n')
    for _ in range(2):
        bad = _plan(tmp_path, config, recipes)
        assert bad.returncode == 2 and "docker_image" in bad.stderr
    (recipes / "toy" / "recipe.toml").write_text('engine = "vllm"\ndocker_image = "i"\n'
                                                 'model = "m"\n')
    off = {"SPARKTUI_NO_CACHE": "1"}
    assert _plan(tmp_path, config, recipes, env=off).returncode == 0
    second = _plan(tmp_path, config, recipes, env=off)
    assert "NO-PYDANTIC" not in second.stderr
    assert not (tmp_path / "cache" / "sparktui" / "plans").exists() or not any(
        (tmp_path / "cache" / "sparktui" / "plans").iterdir())
