"""``sparktui plan``: formats, output file, exit codes, and errors without tracebacks."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from plan_support import (
    DUO,
    EXAMPLE_CONFIG,
    RECIPES,
    VLLM_MIN,
    config_file,
    line_of,
    recipe_file,
    run_module,
)

from sparktui.cli import main

BASE = ["--lang", "en", "--config", str(EXAMPLE_CONFIG), "--recipes", str(RECIPES)]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_text_is_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, *BASE, "plan", "qwen3-235b-2node")
    assert (code, err) == (0, "")
    assert out.startswith("Plan: recipe qwen3-235b-2node on cluster 2nodes\n")
    assert "start order: spark2 -> spark1" in out


def test_json_format(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *BASE, "plan", "qwen3-235b-2node", "--format", "json",
                       "--cluster", "4")
    assert code == 0
    data = json.loads(out)
    assert (data["recipe"], data["cluster"], data["engine"], data["port"]) == (
        "qwen3-235b-2node", "4nodes-switch", "vllm", 30000)
    assert [n["name"] for n in data["nodes"]] == ["spark1", "spark2"]


def test_sh_format_is_a_script(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *BASE, "plan", "qwen3-235b-2node", "-f", "sh")
    assert code == 0
    assert out.startswith("#!/bin/sh\n")
    assert "set -eu\n" in out
    assert "-l ops -- 10.0.0.12" in out and "-l ops -- 10.0.0.11" in out
    assert out.index("-- 10.0.0.12 'docker run") < out.index("-- 10.0.0.11 'docker run")
    assert out.count('-o UserKnownHostsFile="$HOME"/.config/sparktui/known_hosts '
                     "-o StrictHostKeyChecking=yes") == out.count("ssh -p ")


@pytest.mark.parametrize(("fmt", "mode"), [("sh", 0o755), ("json", 0o644), ("text", 0o644)])
def test_output_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str,
                     mode: int) -> None:
    target = tmp_path / "out" / f"plan.{fmt}"
    target.parent.mkdir()
    code, out, _ = run(capsys, *BASE, "plan", "llama-3.3-70b-ray", "-f", fmt, "-o", str(target))
    assert (code, out) == (0, "")
    assert stat.S_IMODE(target.stat().st_mode) == mode
    assert "llama-3.3-70b-ray" in target.read_text()
    assert [p.name for p in target.parent.iterdir()] == [target.name]  # no temp file left


def test_recipe_by_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = recipe_file(tmp_path, VLLM_MIN, "by-path")
    code, out, _ = run(capsys, "--lang", "en", "--config", str(config_file(tmp_path, DUO)),
                       "plan", str(path), "-f", "json")
    assert code == 0
    assert json.loads(out)["recipe"] == "by-path"


# -- bad input: exit 2, a message naming file/line/field, never a traceback ---------------


def _bad(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = run(capsys, "--lang", "en", *argv)
    assert code == 2, err
    assert out == ""
    assert "Traceback" not in err
    return err


def test_bad_config_line_and_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = DUO.replace("rank = 1,", 'rank = "1",')
    path = config_file(tmp_path, text)
    recipe_file(tmp_path, VLLM_MIN)
    err = _bad(capsys, "--config", str(path), "--recipes", str(tmp_path / "recipes"),
               "plan", "demo")
    line = line_of(text, 'rank = "1"')
    assert err == (f"{path}:{line}: clusters[0].nodes[1].rank: expected integer, "
                   "got string\n")


def test_bad_recipe_line_and_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = VLLM_MIN + 'args = [\n  "--max-model-len", "4096",\n  "--headless",\n]\n'
    path = recipe_file(tmp_path, text)
    err = _bad(capsys, "--config", str(config_file(tmp_path, DUO)),
               "--recipes", str(tmp_path / "recipes"), "plan", "demo")
    line = line_of(text, '"--headless"')
    assert err.startswith(f"{path}:{line}: args[2]: '--headless' is set by sparktui")


def test_broken_toml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = DUO + '\n[mount_aliases]\njit = "/mnt/jit\n'
    path = config_file(tmp_path, text)
    err = _bad(capsys, "--config", str(path), "--recipes", str(RECIPES), "plan", "x")
    assert err.startswith(f"{path}:{line_of(text, 'jit = ')}: broken TOML: ")


@pytest.mark.parametrize(("cluster", "expected"), [
    ("2", "'2' matches several clusters: 2nodes, 2nodes-b"),
    ("9", "no cluster matches '9'; clusters: 2nodes, 2nodes-b, 4nodes-switch"),
])
def test_cluster_choice_errors(capsys: pytest.CaptureFixture[str], cluster: str,
                               expected: str) -> None:
    err = _bad(capsys, *BASE[2:], "plan", "qwen3-235b-2node", "-c", cluster)
    assert err == expected + "\n"


def test_unknown_recipe(capsys: pytest.CaptureFixture[str]) -> None:
    err = _bad(capsys, *BASE[2:], "plan", "no-such-recipe")
    assert "no recipe named 'no-such-recipe'" in err
    assert "qwen3-235b-2node" in err


@pytest.mark.parametrize("argv", [["plan"], ["plan", "x", "--format", "yaml"], ["bogus"],
                                  ["plan", "x", "--nope"]])
def test_argument_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--lang", "en", *argv])
    assert info.value.code == 2
    out, err = capsys.readouterr()
    assert "error:" in err and "Traceback" not in err + out


# -- the real process, as the operator runs it ---------------------------------------------


def test_subprocess_plan_ok(tmp_path: Path) -> None:
    proc = run_module(["--config", str(EXAMPLE_CONFIG), "--recipes", str(RECIPES), "plan",
                       "gpt-oss-120b-sglang", "-f", "json"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["engine"] == "sglang"


def test_subprocess_bad_recipe(tmp_path: Path) -> None:
    text = VLLM_MIN + 'engine_args = ["--x"]\n'
    path = recipe_file(tmp_path, text)
    proc = run_module(["--config", str(config_file(tmp_path, DUO)), "--recipes",
                       str(tmp_path / "recipes"), "plan", "demo"], cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == f"{path}:{line_of(text, 'engine_args')}: engine_args: unknown key\n"


def test_subprocess_duplicate_rank(tmp_path: Path) -> None:
    text = DUO.replace("rank = 1,", "rank = 0,")
    path = config_file(tmp_path, text)
    proc = run_module(["--config", str(path), "--recipes", str(RECIPES), "plan",
                       "qwen3-235b-2node"], cwd=tmp_path)
    assert proc.returncode == 2
    line = line_of(text, 'name = "beta"')
    assert proc.stderr == (f"{path}:{line}: clusters[0].nodes[1].rank: rank 0 is used by "
                           "'alpha' and 'beta'\n")
    assert "Traceback" not in proc.stdout + proc.stderr


def test_subprocess_env_config_missing(tmp_path: Path) -> None:
    missing = tmp_path / "gone.toml"
    proc = run_module(["plan", "qwen3-235b-2node"], cwd=tmp_path, HOME=str(tmp_path),
                      SPARKTUI_CONFIG=str(missing))
    assert proc.returncode == 2
    assert str(missing) in proc.stderr and "SPARKTUI_CONFIG" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_subprocess_env_config_found(tmp_path: Path) -> None:
    path = config_file(tmp_path, DUO, name="site.toml")
    proc = run_module(["--recipes", str(RECIPES), "plan", "qwen3-235b-2node", "-f", "json"],
                      cwd=tmp_path, HOME=str(tmp_path), SPARKTUI_CONFIG=str(path))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["cluster"] == "duo"


def test_subprocess_cwd_config_and_recipes(tmp_path: Path) -> None:
    config_file(tmp_path, DUO)
    recipe_file(tmp_path, VLLM_MIN, "here")
    proc = run_module(["plan", "here", "-f", "json"], cwd=tmp_path, HOME=str(tmp_path / "h"))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert (data["recipe"], data["cluster"]) == ("here", "duo")


def test_subprocess_no_config_is_local(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    proc = run_module(["plan", "gpt-oss-120b-sglang", "-f", "json"], cwd=tmp_path,
                      HOME=str(home))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["cluster"] == "local"
    (node,) = data["nodes"]
    assert node["local"] is True and node["role"] == "head"
    assert node["mounts"][0]["host"] == f"{home}/.cache/huggingface"


def test_subprocess_too_small_cluster(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    proc = run_module(["plan", "qwen3-235b-2node"], cwd=tmp_path, HOME=str(home))
    assert proc.returncode == 2
    assert proc.stderr == "cluster 'local' has 1 node, recipe needs 2\n"


def test_main_module_uses_sys_argv(tmp_path: Path) -> None:
    proc = run_module(["--help"], cwd=tmp_path)
    assert proc.returncode == 0
    assert "plan" in proc.stdout
    assert os.fspath(tmp_path) not in proc.stdout


DIGEST_A = "sha256:" + "a" * 64


def test_plan_says_what_the_tag_resolved_to_at_the_last_serve(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """From this machine's record (serve and pull keep it), offline: no node is asked.
    Another image of the recipe, or another cluster, has no digest said."""
    from sparktui.config import image_record

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    code, out, _ = run(capsys, *BASE, "plan", "qwen3-235b-2node")
    assert code == 0 and "resolved to" not in out
    image_record.remember("2nodes", "qwen3-235b-2node", "nvcr.io/nvidia/vllm:25.10-py3",
                          DIGEST_A)
    code, out, _ = run(capsys, *BASE, "plan", "qwen3-235b-2node")
    assert code == 0
    assert f"  image nvcr.io/nvidia/vllm:25.10-py3\n    resolved to {DIGEST_A} at its last " \
           "serve on 2nodes\n" in out
    code, out, _ = run(capsys, *BASE, "plan", "qwen3-235b-2node", "-f", "json")
    assert json.loads(out)["image_digest"] == DIGEST_A
    code, out, _ = run(capsys, *BASE, "plan", "qwen3-235b-2node", "-f", "json",
                       "--cluster", "4nodes-switch")
    assert json.loads(out)["image_digest"] is None
    image_record.remember("2nodes", "qwen3-235b-2node", "vllm/vllm-openai:latest", DIGEST_A)
    code, out, _ = run(capsys, *BASE, "plan", "qwen3-235b-2node")
    assert "resolved to" not in out  # the record is of another image now
