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
