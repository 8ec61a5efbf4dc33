"""What a config or recipe file may be: a regular UTF-8 file of at most 1 MiB.

A FIFO or a device is refused at once (it was read forever), a folder or a symlink
loop is a message (they were tracebacks), a UTF-8 byte order mark is accepted, and
a 50 MB recipe is refused after reading 1 MiB of it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from plan_support import DUO, VLLM_MIN, config_file, recipe_file, run_module

from sparktui.cli import main
from sparktui.config.loader import load_config, load_recipe


def _plan(capsys, config: Path, recipes: Path, recipe: str = "demo") -> tuple[int, str, str]:
    code = main(["--lang", "en", "--config", str(config), "--recipes", str(recipes), "plan",
                 recipe, "-f", "json"])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_utf8_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"\xef\xbb\xbf" + DUO.encode())
    loaded = load_config(path)
    assert [c.name for c in loaded.config.clusters] == ["duo"]
    assert loaded.source.lines is not None
    assert loaded.source.lines.find(("ssh_user",)) == 1
    recipe = recipe_file(tmp_path, VLLM_MIN)
    recipe.write_bytes(b"\xef\xbb\xbf" + recipe.read_bytes())
    assert load_recipe(recipe).recipe.docker_image == "img:1"


def test_a_fifo_config_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    recipe_file(tmp_path, VLLM_MIN)
    # A subprocess with a timeout: before the fix this read blocked for ever.
    proc = run_module(["--config", str(fifo), "--recipes", str(tmp_path / "recipes"), "plan",
                       "demo"], cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == f"{fifo}: is not a regular file (a FIFO, a device or a socket)\n"


@pytest.mark.parametrize("kind", ["folder", "loop", "missing", "device"])
def test_unreadable_configs_are_messages(tmp_path: Path, capsys, kind: str) -> None:
    path = {"folder": tmp_path, "missing": Path("/nonexistent.toml"),
            "loop": tmp_path / "loop.toml", "device": Path("/dev/null")}[kind]
    if kind == "loop":
        path.symlink_to(path)
    recipe_file(tmp_path, VLLM_MIN)
    code, out, err = _plan(capsys, path, tmp_path / "recipes")
    assert (code, out) == (2, "")
    expected = {"folder": "is a folder, not a file", "missing": "file not found",
                "loop": "cannot read file: Too many levels of symbolic links",
                "device": "is not a regular file (a FIFO, a device or a socket)"}[kind]
    assert err == f"{path}: {expected}\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a 000 file")
def test_a_000_config_is_a_message(tmp_path: Path, capsys) -> None:
    path = config_file(tmp_path, DUO)
    path.chmod(0)
    recipe_file(tmp_path, VLLM_MIN)
    code, _out, err = _plan(capsys, path, tmp_path / "recipes")
    assert (code, err) == (2, f"{path}: cannot read file: Permission denied\n")


def test_a_huge_recipe_is_refused_after_1_mib(tmp_path: Path, capsys) -> None:
    path = recipe_file(tmp_path, VLLM_MIN)
    with path.open("a", encoding="utf-8") as handle:
        handle.write('description = "' + "x" * (2 * 1024 * 1024) + '"\n')
    code, _out, err = _plan(capsys, config_file(tmp_path, DUO), tmp_path / "recipes")
    assert code == 2
    assert err == (f"{path}: is larger than 1 MiB; a config or recipe is a page of "
                   "settings\n")


def test_non_utf8_names_its_line(tmp_path: Path, capsys) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(DUO.encode() + b'\n[exec_aliases]\nx = "\xff"\n')
    code, _out, err = _plan(capsys, path, tmp_path)
    assert (code, err) == (2, f"{path}:{DUO.count(chr(10)) + 3}: is not UTF-8 text\n")


def test_deep_nesting_is_a_message(tmp_path: Path, capsys) -> None:
    path = tmp_path / "config.toml"
    path.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    code, _out, err = _plan(capsys, path, tmp_path)
    assert code == 2 and "Traceback" not in err
    assert err.startswith(f"{path}") and "broken TOML" in err


def test_plan_writes_nothing_to_the_cache_folder(tmp_path: Path) -> None:
    """No cache of plan outputs: nothing is stored, so nothing planted there is printed."""
    config = config_file(tmp_path, DUO)
    recipe_file(tmp_path, VLLM_MIN)
    cache = tmp_path / "cache"
    cache.mkdir()
    args = ["--config", str(config), "--recipes", str(tmp_path / "recipes"), "plan", "demo",
            "-f", "sh"]
    first = run_module(args, cwd=tmp_path, XDG_CACHE_HOME=str(cache))
    second = run_module(args, cwd=tmp_path, XDG_CACHE_HOME=str(cache))
    assert first.returncode == second.returncode == 0
    assert first.stdout == second.stdout and first.stdout.startswith("#!/bin/sh\n")
    assert list(cache.rglob("*")) == []


def test_lines_stay_right_after_tricky_strings(tmp_path: Path, capsys) -> None:
    """The line scanner skips strings by pattern: escaped quotes, '#', multi-line ones."""
    text = DUO.replace('ssh_user = "ops"', 'ssh_user = "ops"\n'
                       'home_dir = "/home/o\\"ps # not a comment"\n'
                       "power_off_command = ['a\"b', \"\"\"\nx\n\"\"\", '''\ny''']")
    text += '\n[exec_aliases]\n"k\\"ey" = "v"\nbad = 1\n'
    path = config_file(tmp_path, text)
    recipe_file(tmp_path, VLLM_MIN)
    code, _out, err = _plan(capsys, path, tmp_path / "recipes")
    assert (code, err) == (2, f"{path}:{text.splitlines().index('bad = 1') + 1}: "
                              "exec_aliases.bad: expected string, got integer\n")


def test_the_recipe_editor_does_not_wait_on_a_fifo(tmp_path: Path) -> None:
    """The dashboard's form and copy read a recipe like the loader: a FIFO is a problem."""
    from sparktui.config.recipe_edit import duplicate_recipe, save_form
    from sparktui.errors import SparkError

    fifo = tmp_path / "recipes" / "pipe" / "recipe.toml"
    fifo.parent.mkdir(parents=True)
    os.mkfifo(fifo)
    result = save_form(fifo, {"docker_image": "img:1"})
    assert not result.ok and result.problems[0].code == "file_not_regular"
    with pytest.raises(SparkError) as info:
        duplicate_recipe(tmp_path / "recipes", fifo, "copy")
    assert info.value.problems[0].code == "file_not_regular"
