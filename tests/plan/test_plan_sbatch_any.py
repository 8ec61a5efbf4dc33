"""A Slurm cluster's any N nodes (``allocate = "any"``): the plan resolved on the nodes a
job got (``plan.anywhere``), the job that holds them and the launches as steps of it
(``plan/render/sbatch_any.py``), byte for byte against golden files and valid bash.

After an intended change:
SPARKTUI_UPDATE_GOLDEN=1 python -m pytest tests/plan/test_plan_sbatch_any.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from plan_support import EXAMPLE_CONFIG, RECIPES

from sparktui.config.loader import load_config, load_recipe
from sparktui.config.scripts import known_script_texts
from sparktui.errors import SparkError
from sparktui.plan.anywhere import plan_on_nodes, replan_for
from sparktui.plan.build import build_plan
from sparktui.plan.render.sbatch_any import holder_job, steps_job

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("SPARKTUI_UPDATE_GOLDEN") == "1"
SLURM = EXAMPLE_CONFIG.with_name("slurm.toml")
TABLE = ["spark-a1", "spark-a2", "spark-a3", "spark-a4"]


def _loaded(tmp_path: Path, allocate: str = "any", router: bool = False):
    text = SLURM.read_text().replace("[clusters.slurm]\n",
                                     f'[clusters.slurm]\nallocate = "{allocate}"\n')
    if router:
        text = text.replace("[clusters.slurm]", '[clusters.router]\nnode = "spark-a1"\n'
                            'image = "smg:test"\n\n[clusters.slurm]')
    path = tmp_path / "config.toml"
    path.write_text(text)
    return load_config(path), load_recipe(RECIPES / "qwen3-235b-2node" / "recipe.toml")


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text)
    assert text == path.read_text(), f"differs from {path.name}; regenerate if intended"


def _bash_parses(text: str, tmp_path: Path) -> None:
    script = tmp_path / "script.sh"
    script.write_text(text)
    bash = shutil.which("bash")
    assert bash is not None
    done = subprocess.run([bash, "-n", str(script)], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr


def test_the_plan_on_the_nodes_a_job_got_has_its_head_ranks_and_rendezvous_there(tmp_path):
    config, recipe = _loaded(tmp_path, router=True)
    first = build_plan(config, recipe)
    assert [n.name for n in first.nodes] == ["spark-a1", "spark-a2"]
    there = plan_on_nodes(config, recipe, first, ["spark-a4", "spark-a3"])
    assert [(n.name, n.rank, n.role) for n in sorted(there.nodes, key=lambda n: n.rank)] == [
        ("spark-a3", 0, "head"), ("spark-a4", 1, "worker")]
    launch = " ".join(there.node("spark-a4").launch)
    assert "192.168.200.13" in launch and "192.168.200.11" not in launch  # a3's, a1's
    assert there.router == first.router and there.router is not None  # beside the job
    assert there.slurm == first.slurm


def test_a_replan_is_made_only_where_slurm_picks_the_nodes(tmp_path):
    config, recipe = _loaded(tmp_path, allocate="plan")
    assert replan_for(config, recipe, build_plan(config, recipe)) is None
    config, recipe = _loaded(tmp_path)
    replan = replan_for(config, recipe, build_plan(config, recipe))
    assert replan is not None and replan(["spark-a2", "spark-a4"]).head.name == "spark-a2"
    with pytest.raises(SparkError):  # too few nodes for the recipe: bad input, said
        replan(["spark-a2"])


def test_the_holder_asks_for_any_n_nodes_and_cleans_up_whichever_it_got(tmp_path):
    config, recipe = _loaded(tmp_path)
    plan = build_plan(config, recipe)
    job = holder_job(plan, TABLE, exclude=["gpu-7", "gpu-8"], scripts=known_script_texts())
    assert job.runnable
    assert "#SBATCH --nodes=2\n" in job.script and "--nodelist" not in job.script.split(
        "set -eu")[0]
    assert "#SBATCH --exclude=gpu-7,gpu-8\n" in job.script
    for node in TABLE:  # the cleanup is ready for any node of the table
        assert f"if holds {node}; then\n" in job.script
    _golden("qwen3-235b-2node.shared.holder.sbatch", job.script)
    _bash_parses(job.script, tmp_path)


def test_the_steps_run_each_launch_in_the_job_on_its_node(tmp_path):
    config, recipe = _loaded(tmp_path)
    plan = plan_on_nodes(config, recipe, build_plan(config, recipe), ["spark-a3", "spark-a4"])
    job = steps_job(plan, "4242", scripts=known_script_texts())
    assert job.runnable
    launches = [line for line in job.script.splitlines() if "docker run" in line]
    assert len(launches) == 2
    assert all(line.startswith("srun --jobid=4242 --nodes=1 --ntasks=1 --nodelist=spark-a")
               for line in launches)
    assert launches[-1].startswith("srun --jobid=4242 --nodes=1 --ntasks=1 "
                                   "--nodelist=spark-a3")  # the head last, in start order
    _golden("qwen3-235b-2node.shared.steps.sbatch", job.script)
    _bash_parses(job.script, tmp_path)
