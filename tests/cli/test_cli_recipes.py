"""``sparktui recipes``: the recipes pane's list in the shell, from the pane's own model
(the plan's node count, the same misfit and order), headless and without Textual."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from plan_support import EXAMPLE_CONFIG, RECIPES, REPO, subprocess_env

from sparktui.cli import main
from sparktui.config.loader import load_config
from sparktui.exitcodes import ExitCode
from sparktui.tui.viewmodel.recipes import fit_first, scan_recipes

ARGS = ["--config", str(EXAMPLE_CONFIG), "--recipes", str(RECIPES), "recipes"]


def test_the_list_says_what_the_pane_says_on_the_first_cluster(capsys):
    assert main(ARGS) == ExitCode.OK
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("fit to cluster 2nodes (2 nodes)")
    rows = {line.split()[0]: line for line in out[1:]}
    assert "vllm" in rows["qwen3-30b-dynamo"] and " 3 nodes " in rows["qwen3-30b-dynamo"]
    assert "✗ needs 3 nodes, cluster has 2" in rows["qwen3-30b-dynamo"]
    assert ":8000" in rows["qwen3-30b-dynamo"]  # the Dynamo frontend's port
    assert rows["qwen3-30b-dynamo"].endswith(str(RECIPES / "qwen3-30b-dynamo"))
    assert "services only" in rows["pools-toy"] and " fits " not in rows["pools-toy"]
    assert " 1 node " in rows["qwen3-30b-tmux"] and " fits " in rows["qwen3-30b-tmux"]
    entries, _problems = scan_recipes(RECIPES)
    cluster = load_config(EXAMPLE_CONFIG).config.clusters[0]
    ordered, _why = fit_first(entries, cluster)
    assert [line.split()[0] for line in out[1:]] == [e.name for e in ordered]


def test_json_has_the_plans_numbers_for_the_cluster_asked_for(capsys):
    assert main([*ARGS, "--cluster", "4n", "--json"]) == ExitCode.OK
    listed = json.loads(capsys.readouterr().out)
    assert listed["cluster"] == "4nodes-switch"
    assert listed["folder"] == str(RECIPES)
    entries, _problems = scan_recipes(RECIPES)
    cluster = load_config(EXAMPLE_CONFIG).config.cluster("4nodes-switch")
    facts = {e.name: e.facts(cluster) for e in entries}
    for row in listed["recipes"]:
        assert row["nodes"] == facts[row["name"]].nodes
        assert row["port"] == facts[row["name"]].port
        assert row["engine"] == facts[row["name"]].engine
        assert row["fits"] is True and row["why_not"] is None
    dynamo = next(r for r in listed["recipes"] if r["name"] == "qwen3-30b-dynamo")
    assert (dynamo["nodes"], dynamo["port"]) == (3, 8000)


def test_a_broken_recipe_is_listed_with_why_and_a_missing_folder_is_bad_input(
        tmp_path: Path, capsys):
    (tmp_path / "r" / "broken").mkdir(parents=True)
    (tmp_path / "r" / "broken" / "recipe.toml").write_text('engine = "nope"\n',
                                                          encoding="utf-8")
    args = ["--config", str(EXAMPLE_CONFIG), "--recipes", str(tmp_path / "r"), "recipes"]
    assert main(args) == ExitCode.OK
    out = capsys.readouterr().out
    assert "broken  ⚠ recipe.toml:1: engine:" in out
    assert main([*args, "--json"]) == ExitCode.OK
    (row,) = json.loads(capsys.readouterr().out)["recipes"]
    assert row["loads"] is False and row["nodes"] is None and row["problems"]
    missing = ["--config", str(EXAMPLE_CONFIG), "--recipes", str(tmp_path / "none"),
               "recipes"]
    assert main(missing) == ExitCode.BAD_INPUT
    assert main([*ARGS, "--cluster", "nosuch"]) == ExitCode.BAD_INPUT


def test_recipes_imports_no_textual_no_engine_no_asyncio():
    code = f"""
import contextlib, io, json, sys
from sparktui.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main({ARGS!r})
print(json.dumps([code, sorted(sys.modules)]))
"""
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=subprocess_env(),
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    code, modules = json.loads(proc.stdout.splitlines()[-1])
    assert code == 0
    assert "sparktui.cli.recipes_cmd" in modules
    assert [m for m in modules if m.split(".")[0] == "textual" or m == "asyncio"
            or m.startswith("sparktui.engine")] == []
