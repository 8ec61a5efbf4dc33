"""Why a restart may not go ahead (sparktui.engine.workloads.restart.restart_refusal), the
one function the CLI's restart and the dashboard's R ask before the stop: pure, on the
example config (2nodes-b has a router, 2nodes none) and constructed health."""

from __future__ import annotations

from plan_support import EXAMPLE_CONFIG, RECIPES

from sparktui.config.loader import load_config, load_recipe
from sparktui.engine.api import RestartSaid, restart_refusal
from sparktui.engine.router_names import NamesSaid
from sparktui.engine.status import ClusterHealth, EngineStatus, NodeHealth, Workload
from sparktui.plan.build import build_plan
from sparktui.plan.router import sharing

RECIPE = "qwen3-235b-2node"


def _plan(cluster: str = "2nodes-b"):
    return build_plan(load_config(EXAMPLE_CONFIG), load_recipe(RECIPES / RECIPE / "recipe.toml"),
                      cluster)


def _health(cluster: str, *recipes: str, known: bool = True) -> ClusterHealth:
    """Each of ``recipes`` serves qwen3-235b from a ready head on n1 (n2 answers nothing
    unless ``known``)."""
    work = [Workload(f"sparktui-{r}", r, cluster, "n1", 0, "head", "docker", "running")
            for r in recipes]
    heads = [EngineStatus(health_ok=True, ready=True, models=["qwen3-235b"], recipe=r)
             for r in recipes]
    return ClusterHealth(cluster, [NodeHealth("n1", True, workloads=work, engines=heads),
                                   NodeHealth("n2", known, error=None if known else "refused")],
                         0.0)


def test_nothing_of_the_recipe_runs_is_refused_only_when_every_node_said_so():
    refusal = restart_refusal(_health("2nodes-b", "other"), _plan())
    assert refusal is not None and refusal.code is RestartSaid.NOTHING_RUNS
    assert str(refusal) == ("nothing of qwen3-235b-2node runs on 2nodes-b: nothing to "
                            "restart (serve starts it)")
    # n2 did not answer: it may run the recipe, so that is never "nothing runs"
    assert restart_refusal(_health("2nodes", "other", known=False), _plan("2nodes")) is None


def test_a_name_another_recipe_serves_behind_the_router_is_refused():
    refusal = restart_refusal(_health("2nodes-b", RECIPE, "copy"), _plan())
    assert refusal is not None and refusal.code is RestartSaid.TAKEN
    why = refusal.params["why"]
    assert getattr(why, "code", None) is NamesSaid.TAKEN
    assert str(refusal).startswith("refusing to restart qwen3-235b-2node: qwen3-235b is "
                                   "already served by recipe copy on n1")
    assert refusal.as_json()["code"] == "restart_said.taken"


def test_a_restart_that_may_go_ahead_is_not_refused():
    alone = _health("2nodes-b", RECIPE)
    assert restart_refusal(alone, _plan()) is None
    both = _health("2nodes-b", RECIPE, "copy")
    assert restart_refusal(both, sharing(_plan(), True)) is None  # --share-model
    no_router = _health("2nodes", RECIPE, "copy")
    assert restart_refusal(no_router, _plan("2nodes")) is None  # nothing splits its names
