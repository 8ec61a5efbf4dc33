"""The wheel ships every compiled catalog, and an install speaks the operator's language.

Builds a wheel of this checkout offline (``pip wheel --no-build-isolation``), installs it
into a private folder and runs it from elsewhere, so the catalogs come from the install.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from plan_support import REPO, subprocess_env

from sparktui.i18n import LANGUAGES

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("hatchling") is None and os.environ.get("CI") != "true",
    reason="hatchling is needed to build the wheel offline")


def _pip(*args: str, cwd: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "pip", *args, "-q", "--disable-pip-version-check"],
                          cwd=cwd, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("wheel")
    _pip("wheel", str(REPO), "--no-deps", "--no-build-isolation", "-w", str(out), cwd=out)
    (wheel,) = out.glob("sparktui-*.whl")
    target = tmp_path_factory.mktemp("site")
    _pip("install", "--no-deps", "--no-compile", "--target", str(target), str(wheel), cwd=target)
    return wheel, target


def test_wheel_ships_every_catalog(installed: tuple[Path, Path]) -> None:
    wheel, _site = installed
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    for lang in LANGUAGES:
        assert f"sparktui/_data/locales/{lang}/LC_MESSAGES/sparktui.mo" in names
    assert "sparktui/i18n_catalogs.py" in names  # the maintenance tool, imported by no one


def test_installed_copy_prints_russian(installed: tuple[Path, Path], tmp_path: Path) -> None:
    _wheel, site = installed
    env = subprocess_env(HOME=str(tmp_path), LANG="ru_RU.UTF-8")
    env.pop("LANGUAGE")
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
