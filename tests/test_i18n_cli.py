"""The language reaches the command line: --lang, then the locale variables, else English."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from plan_support import EXAMPLE_CONFIG, RECIPES, subprocess_env


def _run(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = subprocess_env(**env)
    environ.pop("LANGUAGE", None)  # subprocess_env pins English through LANGUAGE
    return subprocess.run([sys.executable, "-m", "sparktui", *args], cwd=tmp_path, env=environ,
                          capture_output=True, text=True, timeout=60, check=False)


def test_unknown_recipe_is_reported_in_french(tmp_path: Path) -> None:
    proc = _run(tmp_path, "--config", str(EXAMPLE_CONFIG), "--recipes", str(RECIPES),
                "plan", "nope", LANG="fr_FR.UTF-8")
    assert proc.returncode == 2
    assert f"aucune recette nommée 'nope' dans {RECIPES} ; recettes :" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_broken_toml_in_french_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "config.toml"
    bad.write_text('ssh_user = "ops"\n[[clusters]\nname = "x"\n', encoding="utf-8")
    proc = _run(tmp_path, "--config", str(bad), "plan", "x", LC_ALL="fr_FR.UTF-8")
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"{bad}:2: TOML invalide : ")


def test_lang_flag_beats_the_environment(tmp_path: Path) -> None:
    proc = _run(tmp_path, "--lang", "de", "--config", str(EXAMPLE_CONFIG), "--recipes",
                str(RECIPES), "plan", "nope", LANG="fr_FR.UTF-8")
    assert proc.returncode == 2
    assert "kein Rezept namens 'nope'" in proc.stderr


def test_unknown_locale_falls_back_to_english_without_error(tmp_path: Path) -> None:
    proc = _run(tmp_path, "--config", str(EXAMPLE_CONFIG), "--recipes", str(RECIPES),
                "plan", "nope", LANG="pt_BR.UTF-8")
    assert proc.returncode == 2
    assert proc.stderr.startswith("no recipe named 'nope'")


def test_help_is_translated(tmp_path: Path) -> None:
    proc = _run(tmp_path, "--lang", "ru", "--help")
    assert proc.returncode == 0
    assert "язык: en, ru, es, it, fr, de" in proc.stdout


def test_plan_path_never_imports_babel(tmp_path: Path) -> None:
    """babel costs ~50 ms: the headless plan, in any language, must not load it."""
    code = ("import sys\nfrom sparktui.cli import main\n"
            f"rc = main(['--lang', 'ru', '--config', {str(EXAMPLE_CONFIG)!r}, '--recipes', "
            f"{str(RECIPES)!r}, 'plan', 'qwen3-235b-2node'])\n"
            "assert rc == 0, rc\nprint('BABEL', 'babel' in sys.modules)\n")
    environ = subprocess_env()
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=environ,
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("BABEL False")
    assert "узлы" in proc.stdout.lower() or "ранг" in proc.stdout.lower()


def test_argparse_errors_are_translated_too(tmp_path: Path) -> None:
    proc = _run(tmp_path, "plan", LANG="fr_FR.UTF-8")
    assert proc.returncode == 2
    assert proc.stdout.startswith("utilisation : sparktui plan")
    assert "les arguments suivants sont obligatoires : recipe" in proc.stderr
