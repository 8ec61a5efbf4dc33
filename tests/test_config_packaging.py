"""The wheel carries the built-in host scripts, the example recipes, the compiled
catalogs and the console script.

Builds a wheel of this checkout (``pip wheel --no-build-isolation``, about a second
with hatchling installed), installs it into a private ``--target`` folder and runs
it from elsewhere, so the data files are found inside the install, not in the
checkout. A few seconds in all; deselect with ``-k "not wheel"``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from plan_support import EXAMPLE_RECIPES, REPO, subprocess_env

from sparktui.i18n import LANGUAGES

pytestmark = [
    # hatchling comes with the test extra; without it (a bare laptop) skip, in CI fail.
    pytest.mark.skipif(
        importlib.util.find_spec("hatchling") is None and os.environ.get("CI") != "true",
        reason="hatchling is needed to build the wheel offline"),
    # One worker builds the wheel once for the module's tests (its fixtures are per
    # module, and per worker).
    pytest.mark.xdist_group("wheel"),
]


def _pip(*args: str, cwd: Path) -> None:
    # No pip cache: pip 23.0 keeps a wheel built from a folder in the user's cache,
    # keyed by the folder, and two builds at once (two workers) read each other's
    # half-written origin.json ("JSONDecodeError" in CI).
    proc = subprocess.run([sys.executable, "-m", "pip", *args, "-q", "--no-cache-dir",
                           "--disable-pip-version-check"],
                          cwd=cwd, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    _pip("wheel", str(REPO), "--no-deps", "--no-build-isolation", "-w", str(out), cwd=out)
    (built,) = out.glob("sparktui-*.whl")
    return built


@pytest.fixture(scope="module")
def site(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("site")
    _pip("install", "--no-deps", "--no-compile", "--target", str(target), str(wheel),
         cwd=target)
    return target


def test_wheel_contents(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        scripts_section = zf.read(entry_points).decode()
    assert "sparktui/_data/host-scripts/stop-dgx-services.sh" in names
    assert "sparktui/_data/host-scripts/restore-dgx-services.sh" in names
    for recipe in EXAMPLE_RECIPES:
        assert f"sparktui/_data/recipes/{recipe}/recipe.toml" in names
    assert "sparktui/cli/__init__.py" in names and "sparktui/plan/build.py" in names
    assert "[console_scripts]" in scripts_section
    assert "sparktui = sparktui.cli:main" in scripts_section
    assert not any(n.startswith(("tests/", "sparktui/tests")) for n in names)


def _run_installed(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = subprocess_env(HOME=str(cwd))
    env["PYTHONPATH"] = str(site)  # the install only: not this checkout
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=60, check=False)


def test_installed_scripts_are_found_inside_the_install(site: Path, tmp_path: Path) -> None:
    code = ("import json, sparktui\n"
            "from sparktui.config.scripts import known_scripts, script_path, script_text\n"
            "print(json.dumps({'package': sparktui.__file__, 'scripts': {a: [str(script_path(a)),"
            " len(script_text(a))] for a in known_scripts()}}))\n")
    proc = _run_installed(site, tmp_path, "-c", code)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert Path(data["package"]).is_relative_to(site)
    assert set(data["scripts"]) == {"stop_dgx_services", "restore_dgx_services"}
    for path, size in data["scripts"].values():
        assert Path(path).is_relative_to(site / "sparktui" / "_data" / "host-scripts")
        assert Path(path).is_file() and size > 0
        assert size == len((REPO / "host-scripts" / Path(path).name).read_text())


def test_installed_plan_uses_shipped_recipes(site: Path, tmp_path: Path) -> None:
    proc = _run_installed(site, tmp_path, "-m", "sparktui", "plan", "qwen3-30b-tmux", "-f", "json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert (data["recipe"], data["cluster"], data["runtime"]) == ("qwen3-30b-tmux", "local",
                                                                 "tmux")


def test_wheel_ships_every_catalog(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    for lang in LANGUAGES:
        assert f"sparktui/_data/locales/{lang}/LC_MESSAGES/sparktui.mo" in names
    assert "sparktui/i18n_catalogs.py" in names  # the maintenance tool, imported by no one


def test_installed_copy_prints_russian(site: Path, tmp_path: Path) -> None:
    env = subprocess_env(HOME=str(tmp_path), LANG="ru_RU.UTF-8")
    env.pop("LANGUAGE", None)
    env["PYTHONPATH"] = str(site)
    code = ("import sparktui.i18n as i, sys\n"
            "from sparktui.cli import main\n"
            "print(i.locale_dir())\n"
            "sys.exit(main(['--config', 'missing.toml', 'plan', 'x']))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2, proc.stderr
    assert Path(proc.stdout.strip()).is_relative_to(site)
    assert "файл не найден" in proc.stderr
