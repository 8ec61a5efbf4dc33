"""``sparktui plan -f sbatch``: the Slurm job script of a recipe on a cluster with
``[clusters.slurm]`` (examples/slurm.toml), byte for byte against golden files,
valid bash, and refused (exit 2, no traceback) where no job can be made.

After an intended change: SPARKTUI_UPDATE_GOLDEN=1 python -m pytest tests/plan/test_plan_sbatch.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from plan_support import DUO, EXAMPLE_CONFIG, RECIPES, VLLM_MIN, config_file, recipe_file

from sparktui.cli import main

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("SPARKTUI_UPDATE_GOLDEN") == "1"
SLURM = EXAMPLE_CONFIG.with_name("slurm.toml")
CASES = ["glm-4.5-air-mtp", "qwen3-235b-2node", "qwen3-30b-dynamo"]


def _plan(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["--lang", "en", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("recipe", CASES)
def test_golden(recipe: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _plan(capsys, "--config", str(SLURM), "--recipes", str(RECIPES), "plan",
                           recipe, "-f", "sbatch")
    assert (code, err) == (0, "")
    path = GOLDEN / f"{recipe}.shared.sbatch"
    if UPDATE:
        path.write_text(out)
    assert out == path.read_text(), f"differs from {path.name}; regenerate if intended"


@pytest.mark.parametrize("recipe", CASES)
def test_the_script_is_bash_that_parses(recipe: str, capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    script = tmp_path / "job.sbatch"
    code, _, err = _plan(capsys, "--config", str(SLURM), "--recipes", str(RECIPES), "plan",
                         recipe, "-f", "sbatch", "-o", str(script))
    assert (code, err) == (0, "")
    assert script.stat().st_mode & 0o100  # executable, as -f sh's
    bash = shutil.which("bash")
    assert bash is not None
    done = subprocess.run([bash, "-n", str(script)], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr


def test_the_job_holds_the_plans_nodes_and_cleans_up_what_it_started(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _plan(capsys, "--config", str(SLURM), "--recipes", str(RECIPES), "plan",
                         "qwen3-235b-2node", "-f", "sbatch")
    assert code == 0
    lines = out.splitlines()
    assert "#SBATCH --partition=spark" in lines and "#SBATCH --nodes=2" in lines
    assert "#SBATCH --nodelist=spark-a1,spark-a2" in lines and "#SBATCH --exclusive" in lines
    assert "#SBATCH --account=llm-team" in lines and "#SBATCH --time=1-00:00:00" in lines
    assert "#SBATCH --reservation" not in out  # unset: no line
    # every launch is a step on its own node, workers first (mp), and the end removes them
    steps = [line for line in lines if line.startswith("srun ") and "docker run" in line]
    assert ["spark-a2" in steps[0], "spark-a1" in steps[1]] == [True, True]
    assert "trap cleanup TERM INT EXIT" in lines
    removals = [line for line in lines if "docker rm -f sparktui-qwen3-235b-2node" in line]
    assert [r.split("'")[0] for r in removals] == [  # the cleanup's, then each node's guard
        "on spark-a1 ", "on spark-a2 ",
        "srun --nodes=1 --ntasks=1 --nodelist=spark-a1 --overlap -- sh -c ",
        "srun --nodes=1 --ntasks=1 --nodelist=spark-a2 --overlap -- sh -c "]
    assert "docker wait sparktui-qwen3-235b-2node" in out


def test_a_cluster_without_slurm_has_no_job_script(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _plan(capsys, "--config", str(EXAMPLE_CONFIG), "--recipes", str(RECIPES),
                           "plan", "qwen3-235b-2node", "-f", "sbatch")
    assert code == 2 and out == "" and "Traceback" not in err
    assert "cluster 2nodes has no [clusters.slurm]" in err


@pytest.mark.parametrize(("table", "field", "words"), [
    ('partition = "gpu nodes"', "partition", "is not a Slurm name"),
    ('partition = "spark"\ntime_limit = "soon"', "time_limit", "is not a Slurm time limit"),
    ('partition = "spark"\naccount = "-x"', "account", "is not a Slurm name"),
    ('partition = "spark"\nsubmit_host = "login1 ; rm"', "submit_host", "is not a host name"),
    ('partition = "spark"\nqueue = "x"', "queue", ""),
])
def test_bad_slurm_values_name_the_file_and_line(tmp_path: Path, table: str, field: str,
                                                 words: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    config = config_file(tmp_path, DUO + "\n[clusters.slurm]\n" + table + "\n")
    recipes = recipe_file(tmp_path, VLLM_MIN)
    code, out, err = _plan(capsys, "--config", str(config), "--recipes", str(recipes.parent.parent),
                           "plan", recipes.parent.name, "-f", "sbatch")
    assert code == 2 and out == "" and "Traceback" not in err
    assert f"{config}:" in err and field in err and words in err, err
