"""The recipes pane lists the recipes that fit the cluster in focus first, marks the
others with why, and shows the port the API answers on (a Dynamo frontend's)."""

from __future__ import annotations

from pathlib import Path

from sparktui.config.loader import load_config
from sparktui.errors import SparkError
from sparktui.plan.build import build_plan
from sparktui.tui.viewmodel.recipes import fit_first, scan_recipes
from tui.support import EXAMPLE_CONFIG, RECIPES, make_app


def _solo_and_pair(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text('[[clusters]]\nname = "solo"\n'
                    'nodes = [{ name = "s1", ssh_ip = "10.0.0.21", rank = 0 }]\n'
                    '[[clusters]]\nname = "pair"\n'
                    'nodes = [{ name = "p1", ssh_ip = "10.0.0.31", rank = 0 },\n'
                    '         { name = "p2", ssh_ip = "10.0.0.32", rank = 1 }]\n',
                    encoding="utf-8")
    return path


def test_the_recipes_that_fit_come_first_and_the_others_say_why(tmp_path: Path):
    config = load_config(_solo_and_pair(tmp_path))
    entries, problems = scan_recipes(RECIPES)
    assert not problems
    solo = config.config.clusters[0]
    ordered, why = fit_first(entries, solo)
    fits = [e.name for e in ordered if e.name not in why]
    assert fits == ["gpt-oss-120b-sglang", "qwen3-30b-tmux"]  # the one-node recipes
    assert [e.name for e in ordered[:len(fits)]] == fits
    assert why["glm-4.5-air-mtp"] == "needs 2 nodes, cluster has 1"
    for entry in ordered:  # what the list says matches what plan decides
        try:
            build_plan(config, entry.loaded, "solo")
        except SparkError:  # any refusal: the entry is marked
            assert entry.name in why
        else:
            assert entry.name not in why


async def test_the_first_recipe_selected_fits_and_a_switch_keeps_the_choice(tmp_path: Path):
    app = make_app(config=load_config(_solo_and_pair(tmp_path)))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        dashboard = app.dashboard
        assert dashboard.cluster == "solo"
        assert dashboard.recipe == "gpt-oss-120b-sglang"
        assert "glm-4.5-air-mtp" in dashboard.recipes.misfits
        assert dashboard.recipes.select("glm-4.5-air-mtp")
        await pilot.pause()
        app.focus_cluster("pair")  # it fits there: the list reorders, the cursor stays
        await pilot.pause()
        assert dashboard.recipe == "glm-4.5-air-mtp"
        assert "glm-4.5-air-mtp" not in dashboard.recipes.misfits
        assert dashboard.recipes.entries[0].name == "glm-4.5-air-mtp"


def test_the_dynamo_recipe_shows_the_frontends_port():
    entries, _problems = scan_recipes(RECIPES)
    dynamo = next(e for e in entries if e.name == "qwen3-30b-dynamo")
    config = load_config(EXAMPLE_CONFIG)
    plan = build_plan(config, dynamo.loaded, "4nodes-switch")
    assert plan.port == 8000 != dynamo.loaded.recipe.port
    assert dynamo.summary().endswith(f" · :{plan.port}")


async def test_a_config_without_clusters_says_what_to_add(tmp_path: Path):
    from sparktui.tui.viewmodel.recipes import CLUSTER_EXAMPLE

    empty = tmp_path / "config.toml"
    empty.write_text("# no clusters yet\n", encoding="utf-8")
    app = make_app(config=load_config(empty))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        dashboard = app.dashboard
        assert "[[clusters]]" in str(dashboard.query_one("#clusters-empty").render())
        text = str(dashboard.plan.query_one("#plan-text").render())
        assert str(empty) in text and CLUSTER_EXAMPLE in text
        assert dashboard.plan.border_title == "glm-4.5-air-mtp"  # not "... on "
    (tmp_path / "added.toml").write_text(CLUSTER_EXAMPLE + "\n", encoding="utf-8")
    added = load_config(tmp_path / "added.toml")  # the example is a config that loads
    assert [n.name for n in added.config.clusters[0].nodes] == ["spark1"]


def _nodes_of(summary: str) -> int:
    return int(next(part for part in summary.split(" · ") if "node" in part).split()[0])


def test_the_summary_counts_the_nodes_the_plan_runs_on():
    """Every example recipe on every example cluster: the line says as many nodes as the
    plan takes (engine, pools, dedicated), or as its misfit asks for."""
    config = load_config(EXAMPLE_CONFIG)
    entries, _problems = scan_recipes(RECIPES)
    for cluster in config.config.clusters:
        _ordered, why = fit_first(entries, cluster)
        for entry in entries:
            said = _nodes_of(entry.summary(cluster))
            if entry.name in why:
                assert why[entry.name].startswith(f"needs {said} node"), (entry.name, why)
                continue
            try:
                plan = build_plan(config, entry.loaded, cluster.name)
            except SparkError:
                continue  # refused for another reason (no [nccl] entry...)
            used = {n.name for n in plan.nodes} | {n for s in plan.services for n in s.nodes}
            assert said == len(used), (entry.name, cluster.name)


def test_tensor_parallel_without_required_nodes_counts_the_plans_nodes(tmp_path: Path):
    folder = tmp_path / "recipes" / "tp2"
    folder.mkdir(parents=True)
    (folder / "recipe.toml").write_text(
        'engine = "vllm"\ndocker_image = "vllm/vllm-openai:v0.11.0"\nmodel = "m/m"\n'
        'tensor_parallel_size = 2\n', encoding="utf-8")
    config = load_config(_solo_and_pair(tmp_path))
    (entry,), _problems = scan_recipes(tmp_path / "recipes")
    solo, pair = config.config.clusters
    plan = build_plan(config, entry.loaded, "pair")
    assert len(plan.nodes) == 2
    assert entry.summary(pair) == f"vllm · 2 nodes · :{plan.port}"
    assert entry.summary(solo) == f"vllm · 2 nodes · :{plan.port}"  # above "needs 2 nodes"
    assert fit_first([entry], solo)[1] == {"tp2": "needs 2 nodes, cluster has 1"}


def test_the_dynamo_recipe_counts_its_dedicated_node():
    entries, _problems = scan_recipes(RECIPES)
    dynamo = next(e for e in entries if e.name == "qwen3-30b-dynamo")
    two = load_config(EXAMPLE_CONFIG).config.cluster("2nodes")
    assert dynamo.summary(two) == "vllm · 3 nodes · :8000"
    assert fit_first([dynamo], two)[1]["qwen3-30b-dynamo"] == "needs 3 nodes, cluster has 2"
