"""The router's plan and config (sparktui.plan.router): made as data from untrusted names."""

from __future__ import annotations

import json
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sparktui.config.models import Cluster, Config, Node, Router
from sparktui.plan.router import Backend, config_text, litellm_config, router_plan

CLUSTER = Cluster(name="c", nodes=[Node(name="n1", ssh_ip="10.0.0.1", rank=0),
                                   Node(name="n2", ssh_ip="10.0.0.2", rank=1)],
                  router=Router(port=4100, node="n2"))


def _yaml():
    """LiteLLM's own YAML loader (PyYAML, from the router tests' LiteLLM folder)."""
    from hosts.testimage import router

    if not (router.LITELLM_SITE / "yaml").is_dir():
        pytest.skip(f"LiteLLM's libraries are not installed: {router.INSTALL}")
    sys.path.insert(0, str(router.LITELLM_SITE))
    try:
        import yaml
    finally:
        sys.path.remove(str(router.LITELLM_SITE))
    return yaml


def test_the_router_runs_where_the_table_says_with_its_config_mounted():
    plan = router_plan(Config(clusters=[CLUSTER]), CLUSTER)
    assert plan is not None and plan.node == "n2" and plan.address == "http://10.0.0.2:4100/v1"
    assert plan.launch[:5] == ["docker", "run", "-d", "--name", "sparktui--router"]
    assert f"{plan.config_path}:/app/config.yaml:ro" in plan.launch
    assert plan.launch[-6:] == ["--config", "/app/config.yaml", "--host", "0.0.0.0",
                                "--port", "4100"]
    assert not any(a.startswith("sparktui.recipe=") for a in plan.launch)  # no recipe's stop
    no_router = Cluster(name="d", nodes=CLUSTER.nodes)
    assert router_plan(Config(clusters=[no_router]), no_router) is None


def test_each_served_model_routes_to_its_head():
    config = litellm_config([Backend("org/b", "beta", "http://10.0.0.1:30002/v1"),
                             Backend("org/a", "alpha", "http://10.0.0.1:30001/v1")])
    assert [(m["model_name"], m["litellm_params"]["model"], m["litellm_params"]["api_base"])
            for m in config["model_list"]] == [
        ("org/a", "openai/org/a", "http://10.0.0.1:30001/v1"),
        ("org/b", "openai/org/b", "http://10.0.0.1:30002/v1")]
    assert all(m["litellm_params"]["api_key"] == "sparktui-no-key" for m in config["model_list"])


@settings(max_examples=200, deadline=None)
@given(model=st.text(min_size=1, max_size=80), recipe=st.text(max_size=40))
def test_any_name_stays_one_value_of_the_config(model: str, recipe: str):
    text = config_text(litellm_config([Backend(model, recipe, "http://10.0.0.1:1/v1")]))
    plain = config_text(litellm_config([Backend("x", "y", "http://10.0.0.1:1/v1")]))
    assert len(text.splitlines()) == len(plain.splitlines())  # no name breaks a line
    entry = json.loads(text)["model_list"][0]
    assert entry["model_name"] == model and entry["model_info"]["sparktui_recipe"] == recipe
    assert len(json.loads(text)["model_list"]) == 1


@settings(max_examples=100, deadline=None)
@given(model=st.text(min_size=1, max_size=80))
def test_litellms_yaml_loader_reads_the_same_names(model: str):
    yaml = _yaml()
    config = litellm_config([Backend(model, "r", "http://10.0.0.1:1/v1")])
    assert yaml.safe_load(config_text(config)) == config
