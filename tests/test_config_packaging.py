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
import re
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


def _messages(site: Path) -> list[str]:
    """Every msgid of the installed catalog template: each string sparktui shows through
    ``_()``, ``ngettext`` or ``N_`` (messages, --help texts, labels)."""
    pot = (site / "sparktui" / "_data" / "locales" / "sparktui.pot").read_text()
    joined = re.sub(r'"\n"', "", pot)  # a long msgid's continuation lines, joined
    return re.findall(r'^msgid(?:_plural)? "(.+)"$', joined, flags=re.MULTILINE)


FILE_NAMED = re.compile(r"(?:docs|examples)/[\w./-]+|[\w.-]*\.Dockerfile\b")
COMMAND_NAMED = re.compile(r"`sparktui ([a-z-]+)([^`]*)`")


def test_no_message_points_at_a_file_the_install_lacks(site: Path) -> None:
    """A pip install has no docs/, examples/ or Dockerfile beside it: a message names a
    command that prints what it needs (#29 item 17)."""
    messages = _messages(site)
    assert len(messages) > 500
    named = {m for text in messages for m in FILE_NAMED.findall(text)}
    assert not [n for n in named if not (site / "sparktui" / "_data" / n).exists()], named


def test_every_command_a_message_names_is_one_the_install_has(site: Path,
                                                              tmp_path: Path) -> None:
    named = {(m.group(1), tuple(w for w in m.group(2).split() if w.startswith("-")))
             for text in _messages(site) for m in COMMAND_NAMED.finditer(text)}
    assert ("supervise", ("--dockerfile",)) in named and ("power", ("--help",)) in named
    code = ("import argparse, json\n"
            "from sparktui.cli.parser import build_parser\n"
            "sub = next(a for a in build_parser()._actions\n"
            "           if isinstance(a, argparse._SubParsersAction))\n"
            "print(json.dumps({name: [o for a in p._actions for o in a.option_strings]\n"
            "                  for name, p in sub.choices.items()}))\n")
    proc = _run_installed(site, tmp_path, "-c", code)
    assert proc.returncode == 0, proc.stderr
    options = json.loads(proc.stdout)
    for command, flags in named:
        assert command in options, command
        assert set(flags) <= set(options[command]), (command, flags)


def test_the_installed_copy_prints_what_its_messages_send_the_user_to(site: Path,
                                                                        tmp_path: Path) -> None:
    proc = _run_installed(site, tmp_path, "-m", "sparktui", "supervise", "--dockerfile")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (REPO / "supervisor-wheel.Dockerfile").read_text()
    assert "\nFROM " in proc.stdout and 'ENTRYPOINT ["sparktui"]' in proc.stdout
    assert "docker build -f supervisor.Dockerfile" in proc.stdout  # how to build it
    proc = _run_installed(site, tmp_path, "-m", "sparktui", "power", "--help")
    assert proc.returncode == 0, proc.stderr
    assert "[home_assistant]" in proc.stdout and "token = " in proc.stdout
    assert "entity" in proc.stdout and "docs/" not in proc.stdout
