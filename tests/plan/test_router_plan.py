"""The router's plan (sparktui.plan.router): one argv, what serves adds only addresses."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from plan_support import DUO, VLLM_MIN, make_plan

from sparktui.config.models import Cluster, Config, Node, Router
from sparktui.plan.router import (
    KEY_READER,
    ROUTER_ARGS,
    Backend,
    launch_for,
    metrics_host,
    router_plan,
    served_names,
)

CLUSTER = Cluster(name="c", nodes=[Node(name="n1", ssh_ip="10.0.0.1", rank=0),
                                   Node(name="n2", ssh_ip="10.0.0.2", rank=1)],
                  router=Router(port=4100, node="n2"))


def _plan():
    plan = router_plan(Config(clusters=[CLUSTER]), CLUSTER)
    assert plan is not None
    return plan


def test_the_router_runs_where_the_table_says():
    plan = _plan()
    assert plan.node == "n2" and plan.address == "http://10.0.0.2:4100/v1"
    assert plan.launch[:5] == ["docker", "run", "-d", "--name", "sparktui--router"]
    assert plan.launch[-len(ROUTER_ARGS) - 13:] == [
        "--entrypoint", "python3", "lightseekorg/smg:1.13.0", "-c", KEY_READER,
        "--host", "0.0.0.0", "--port", "4100", *ROUTER_ARGS,
        # its metrics on its node's own address, not on every interface
        "--prometheus-host", "10.0.0.2", "--prometheus-port", "29000"]
    assert "--enable-igw" not in plan.launch  # that mode drops --worker-urls
    assert "sparktui.router=smg" in plan.launch
    # no recipe's stop takes it, and no label its image bakes makes it one's
    assert [a for a in plan.launch if a.startswith("sparktui.recipe")] == ["sparktui.recipe="]
    # one folder of its own on the node, read-only: the keys (none in the plan itself)
    assert plan.launch[plan.launch.index("-v") + 1] == \
        "/root/.local/state/sparktui/router:/run/sparktui-router:ro"
    assert plan.launch.count("-v") == 1
    no_router = Cluster(name="d", nodes=CLUSTER.nodes)
    assert router_plan(Config(clusters=[no_router]), no_router) is None


def test_each_serving_head_is_one_worker():
    plan = _plan()
    launch = launch_for(plan, [Backend("org/b", "beta", "http://10.0.0.1:30002"),
                               Backend("org/a", "alpha", "http://10.0.0.1:30001"),
                               Backend("org/a-alias", "alpha", "http://10.0.0.1:30001")])
    assert launch[:len(plan.launch)] == plan.launch
    assert launch[len(plan.launch):] == ["--worker-urls", "http://10.0.0.1:30001",
                                         "http://10.0.0.1:30002"]


@settings(max_examples=200, deadline=None)
@given(model=st.text(min_size=1, max_size=80), recipe=st.text(max_size=40))
def test_no_name_reaches_the_routers_command_line(model: str, recipe: str):
    plan = _plan()
    named = launch_for(plan, [Backend(model, recipe, "http://10.0.0.1:1")])
    plain = launch_for(plan, [Backend("x", "y", "http://10.0.0.1:1")])
    assert named == plain  # the model's and the recipe's names are nowhere in it


def test_the_metrics_bind_an_address_of_the_node_and_never_every_interface():
    assert metrics_host("10.0.0.2", "") == "10.0.0.2"
    assert metrics_host("spark2.lan", "192.168.100.2") == "192.168.100.2"
    assert metrics_host("spark2.lan", "") == "127.0.0.1"  # SMG binds no host name


def test_the_served_names_come_from_the_heads_own_argv(tmp_path):
    def names(args: str = "", engine: str = "vllm") -> list[str]:
        recipe = VLLM_MIN.replace('"vllm"', f'"{engine}"') + (f"args = [{args}]\n" if args else "")
        return served_names(make_plan(tmp_path, DUO, recipe))

    assert names() == ["org/model"]  # vLLM serves its model under its own name
    assert names(engine="sglang") == ["org/model"]  # SGLang: its --model-path
    assert names('"--served-model-name", "org/a", "org/b", "--max-model-len", "8"') == [
        "org/a", "org/b"]
    assert names('"--served-model-name=org/c"') == ["org/c"]
