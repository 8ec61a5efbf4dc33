"""Which cluster a recipe runs on: exact name, unique prefix, ``auto``, and node counts."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_support import EXAMPLE_CONFIG, VLLM_MIN, load_cfg, load_rec, problem_of

from sparktui.config.loader import load_config
from sparktui.config.models import Config
from sparktui.config.recipe import Recipe
from sparktui.plan.cluster import (
    effective_pipeline_size,
    nodes_needed,
    pick_cluster,
    resolve_cluster,
)


def recipe(**fields: object) -> Recipe:
    return Recipe.model_validate({"engine": "vllm", "docker_image": "i", "model": "m", **fields})


@pytest.fixture(scope="module")
def examples() -> Config:
    return load_config(EXAMPLE_CONFIG).config


@pytest.mark.parametrize(("requested", "chosen"), [
    ("2nodes", "2nodes"), ("2nodes-b", "2nodes-b"), ("4nodes-switch", "4nodes-switch"),
    ("4", "4nodes-switch"), ("4nodes", "4nodes-switch"), ("2nodes-", "2nodes-b"),
])
def test_name_and_unique_prefix(examples: Config, requested: str, chosen: str) -> None:
    assert resolve_cluster(examples, recipe(required_nodes=2), requested).name == chosen


def test_exact_name_beats_prefix(examples: Config) -> None:
    # "2nodes" is also a prefix of "2nodes-b": the exact match wins, no ambiguity.
    assert resolve_cluster(examples, recipe(), "2nodes").name == "2nodes"


def test_ambiguous_prefix_lists_candidates(examples: Config) -> None:
    err = problem_of(lambda: resolve_cluster(examples, recipe(), "2"))
    assert err.render() == "'2' matches several clusters: 2nodes, 2nodes-b"
    assert err.exit_code == 2


def test_unknown_name_lists_clusters(examples: Config) -> None:
    err = problem_of(lambda: resolve_cluster(examples, recipe(), "8nodes"))
    assert err.render() == "no cluster matches '8nodes'; clusters: 2nodes, 2nodes-b, 4nodes-switch"


@pytest.mark.parametrize(("fields", "chosen"), [
    ({"required_nodes": 2}, "2nodes"),
    ({"required_nodes": 3}, "4nodes-switch"),
    ({"required_nodes": 4}, "4nodes-switch"),
    ({"tensor_parallel_size": 2}, "2nodes"),
    ({"tensor_parallel_size": 3}, "4nodes-switch"),
    ({"tensor_parallel_size": 2, "pipeline_parallel_size": 2}, "4nodes-switch"),
    ({}, "2nodes"),
])
def test_auto_picks_smallest_fitting(examples: Config, fields: dict, chosen: str) -> None:
    assert resolve_cluster(examples, recipe(**fields), "auto").name == chosen
    # with several clusters and no --cluster, auto is what happens
    assert resolve_cluster(examples, recipe(**fields), None).name == chosen


def test_auto_needs_nccl_entry(tmp_path: Path) -> None:
    cfg = load_cfg(tmp_path, """
        [[clusters]]
        name = "big-no-fabric"
        nodes = [
          { name = "a", ssh_ip = "1", rank = 0 }, { name = "b", ssh_ip = "2", rank = 1 },
          { name = "c", ssh_ip = "3", rank = 2 },
        ]
        [[clusters]]
        name = "huge"
        nodes = [
          { name = "d", ssh_ip = "4", rank = 0 }, { name = "e", ssh_ip = "5", rank = 1 },
          { name = "f", ssh_ip = "6", rank = 2 }, { name = "g", ssh_ip = "7", rank = 3 },
        ]
        [nccl."huge"]
        socket_ifname = "eth1"
    """).config
    assert resolve_cluster(cfg, recipe(required_nodes=2), "auto").name == "huge"


def test_auto_uses_gpus_per_node(tmp_path: Path) -> None:
    cfg = load_cfg(tmp_path, """
        [[clusters]]
        name = "single-gpu-pair"
        nodes = [{ name = "a", ssh_ip = "1", rank = 0 }, { name = "b", ssh_ip = "2", rank = 1 }]
        [[clusters]]
        name = "fat"
        gpus_per_node = 4
        nodes = [{ name = "c", ssh_ip = "3", rank = 0 }]
        [nccl."single-gpu-pair"]
        ib_hca = "x"
        [nccl."fat"]
        ib_hca = "x"
    """).config
    rec = recipe(tensor_parallel_size=4)
    fat = cfg.cluster("fat")
    assert nodes_needed(rec, fat) == 1
    assert nodes_needed(rec, cfg.cluster("single-gpu-pair")) == 4
    assert resolve_cluster(cfg, rec, "auto").name == "fat"


def test_auto_none_fits_says_how_many(examples: Config) -> None:
    err = problem_of(lambda: resolve_cluster(examples, recipe(required_nodes=5), "auto"))
    assert err.render() == "no cluster with an [nccl] entry has the 5 nodes the recipe needs"


@pytest.mark.parametrize(("fields", "need"), [({"required_nodes": 3}, 3),
                                              ({"tensor_parallel_size": 4}, 4)])
def test_too_few_nodes_names_the_need(examples: Config, fields: dict, need: int) -> None:
    err = problem_of(lambda: resolve_cluster(examples, recipe(**fields), "2nodes-b"))
    assert err.render() == f"cluster '2nodes-b' has 2 nodes, recipe needs {need}"


def test_single_cluster_is_used_without_nccl(tmp_path: Path) -> None:
    cfg = load_cfg(tmp_path, """
        [[clusters]]
        name = "lonely"
        nodes = [{ name = "a", ssh_ip = "1", rank = 0 }, { name = "b", ssh_ip = "2", rank = 1 }]
    """).config
    assert resolve_cluster(cfg, recipe(required_nodes=2), None).name == "lonely"
    err = problem_of(lambda: resolve_cluster(cfg, recipe(required_nodes=3), None))
    assert "needs 3" in err.render()


def test_no_clusters(tmp_path: Path) -> None:
    cfg = load_cfg(tmp_path, 'ssh_user = "ops"\n').config
    err = problem_of(lambda: resolve_cluster(cfg, recipe(), None))
    assert err.render() == "the config defines no clusters"


def test_nodes_needed_rules() -> None:
    one_gpu = load_config(EXAMPLE_CONFIG).config.cluster("4nodes-switch")
    assert nodes_needed(recipe(required_nodes=3, tensor_parallel_size=1), one_gpu) == 3
    assert nodes_needed(recipe(tensor_parallel_size=2, pipeline_parallel_size=2), one_gpu) == 4
    # pp = 0 (auto) counts as 1 when nothing says how many nodes to fill
    assert nodes_needed(recipe(tensor_parallel_size=2, pipeline_parallel_size=0), one_gpu) == 2


def test_pipeline_auto_fills_nodes() -> None:
    four = load_config(EXAMPLE_CONFIG).config.cluster("4nodes-switch")
    assert effective_pipeline_size(recipe(tensor_parallel_size=1, pipeline_parallel_size=0),
                                   four, 4) == 4
    assert effective_pipeline_size(recipe(tensor_parallel_size=2, pipeline_parallel_size=0),
                                   four, 4) == 2
    assert effective_pipeline_size(recipe(tensor_parallel_size=2, pipeline_parallel_size=3),
                                   four, 4) == 3


def test_plan_with_pp_auto(tmp_path: Path) -> None:
    from sparktui.plan.build import build_plan

    cfg = load_cfg(tmp_path, """
        [[clusters]]
        name = "quad"
        nodes = [
          { name = "a", ssh_ip = "1", rank = 0 }, { name = "b", ssh_ip = "2", rank = 1 },
          { name = "c", ssh_ip = "3", rank = 2 }, { name = "d", ssh_ip = "4", rank = 3 },
        ]
    """)
    rec = load_rec(tmp_path, VLLM_MIN + "required_nodes = 4\ntensor_parallel_size = 2\n"
                   "pipeline_parallel_size = 0\n")
    plan = build_plan(cfg, rec)
    launch = plan.head.launch
    assert launch[launch.index("--pipeline-parallel-size") + 1] == "2"
    assert launch[launch.index("--nnodes") + 1] == "4"


def test_plan_rejects_tp_larger_than_gpus(tmp_path: Path) -> None:
    from sparktui.plan.build import build_plan

    cfg = load_cfg(tmp_path, """
        [[clusters]]
        name = "pair"
        nodes = [{ name = "a", ssh_ip = "1", rank = 0 }, { name = "b", ssh_ip = "2", rank = 1 }]
    """)
    rec = load_rec(tmp_path, VLLM_MIN + "required_nodes = 2\ntensor_parallel_size = 4\n")
    err = problem_of(lambda: build_plan(cfg, rec))
    assert err.render() == ("tensor x pipeline parallel = 4 GPUs does not fit 2 nodes x 1 GPUs")


def test_pick_cluster_without_recipe(examples: Config, tmp_path: Path) -> None:
    assert pick_cluster(examples, "4").name == "4nodes-switch"
    assert pick_cluster(examples, "2nodes").name == "2nodes"
    err = problem_of(lambda: pick_cluster(examples, None))
    assert all(name in err.render() for name in ("2nodes", "2nodes-b", "4nodes-switch"))
    assert err.problems[0].code == "cluster_required"
    single = load_cfg(tmp_path, """
        [[clusters]]
        name = "only"
        nodes = [{ name = "a", ssh_ip = "1", rank = 0 }]
    """).config
    assert pick_cluster(single, None).name == "only"
