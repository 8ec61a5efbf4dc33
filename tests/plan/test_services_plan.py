"""Services in launch plans: carving, implied services, placeholders, env, labels, sizing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from plan_support import DUO, VLLM_MIN, dedent, load_cfg, load_rec, make_plan, problem_of
from services_support import QUAD, SERVICES_ONLY, svc

from sparktui.config.models import Node
from sparktui.plan.build import build_plan
from sparktui.plan.model import LaunchPlan
from sparktui.plan.render.text import render_text
from sparktui.plan.service_model import PHASES, ServicePlan
from sparktui.plan.services.placeholders import NAMES, substitute, values

# QUAD plus a two-node cluster with fabric settings, for ``auto``.
PAIR_AND_QUAD = QUAD + """
[[clusters]]
name = "pair"
nodes = [
  { name = "p0", ssh_ip = "10.9.2.10", rank = 0 },
  { name = "p1", ssh_ip = "10.9.2.11", rank = 1 },
]

[nccl."pair"]
socket_ifname = "eth0"
"""
TWO_NODE_ENGINE = VLLM_MIN + "required_nodes = 2\n"


def plan_of(tmp_path: Path, recipe: str, config: str = QUAD,
            cluster: str | None = None) -> LaunchPlan:
    return make_plan(tmp_path, config, recipe, cluster)


def service(plan: LaunchPlan, name: str) -> ServicePlan:
    return next(s for s in plan.services if s.name == name)


# -- carving -----------------------------------------------------------------------------


def test_pools_are_carved_after_the_engine_in_declaration_order(tmp_path: Path) -> None:
    recipe = TWO_NODE_ENGINE + svc('nodes = 1\ncommand = ["x"]\n', name="b") \
        + svc('nodes = 1\ncommand = ["x"]\n', name="a")
    plan = plan_of(tmp_path, recipe, cluster="quad")
    assert [n.name for n in plan.nodes] == ["n0", "n1"]
    assert service(plan, "b").nodes == ["n2"] and service(plan, "a").nodes == ["n3"]
    assert service(plan, "b").pool == "b" and service(plan, "b").owns_pool


def test_rider_runs_one_instance_per_pool_node(tmp_path: Path) -> None:
    recipe = SERVICES_ONLY + svc('nodes = 3\ncommand = ["x"]\n', name="train") \
        + svc('placement = { pool = "train" }\ncommand = ["y"]\n', name="watch")
    plan = plan_of(tmp_path, recipe)
    watch = service(plan, "watch")
    assert watch.nodes == ["n0", "n1", "n2"] and watch.pool == "train"
    assert not watch.owns_pool and watch.placement == "pool"
    assert [(i.index, i.node) for i in watch.instances] == [(0, "n0"), (1, "n1"), (2, "n2")]


def test_placements_head_workers_compute_all_dedicated(tmp_path: Path) -> None:
    recipe = TWO_NODE_ENGINE + "".join(
        svc(f'command = ["x"]\nplacement = {{ node = "{where}" }}\n', name=where)
        for where in ("head", "workers", "compute", "all", "dedicated")) \
        + svc('nodes = 1\ncommand = ["x"]\n', name="pool")
    plan = plan_of(tmp_path, recipe, cluster="quad")
    assert {s.name: s.nodes for s in plan.services} == {
        "head": ["n0"], "workers": ["n0", "n1"], "compute": ["n0", "n1", "n2"],
        "all": ["n0", "n1", "n2", "n3"], "dedicated": ["n3"], "pool": ["n2"]}


def test_services_only_head_is_the_first_node(tmp_path: Path) -> None:
    recipe = SERVICES_ONLY + svc('nodes = 2\ncommand = ["x"]\n', name="p") \
        + svc('command = ["echo", "{head_ip}"]\n', name="h")
    plan = plan_of(tmp_path, recipe)
    assert (plan.engine, plan.port, plan.nodes, plan.start_order) == ("none", 0, [], [])
    assert plan.frontend == "none"
    assert service(plan, "h").nodes == ["n0"] == service(plan, "p").nodes[:1]


def test_too_few_nodes_says_how_many(tmp_path: Path) -> None:
    recipe = TWO_NODE_ENGINE + svc('nodes = 2\ncommand = ["x"]\n', name="train") \
        + svc('command = ["x"]\nplacement = { node = "dedicated" }\n', name="etcd2")
    err = problem_of(lambda: plan_of(tmp_path, recipe, cluster="quad"))
    assert err.render() == ("cluster 'quad' has 4 nodes, recipe needs 5 "
                            "(2 engine, 2 pool train, 1 dedicated)")


def test_auto_counts_pool_nodes(tmp_path: Path) -> None:
    one_node = VLLM_MIN + svc('nodes = 2\ncommand = ["x"]\n', name="p")
    assert plan_of(tmp_path, one_node, PAIR_AND_QUAD, "auto").cluster == "quad"
    assert plan_of(tmp_path, VLLM_MIN, PAIR_AND_QUAD, "auto").cluster == "pair"
    too_big = VLLM_MIN + svc('nodes = 4\ncommand = ["x"]\n', name="p")
    err = problem_of(lambda: plan_of(tmp_path, too_big, PAIR_AND_QUAD, "auto"))
    assert err.render().startswith("no cluster has the 5 nodes the recipe needs "
                                   "(1 engine, 4 pool p)")


def test_disabled_owner_takes_no_nodes(tmp_path: Path) -> None:
    recipe = SERVICES_ONLY + svc('nodes = 4\nenabled = false\ncommand = ["x"]\n', name="off") \
        + svc('nodes = 1\ncommand = ["x"]\n', name="on")
    plan = plan_of(tmp_path, recipe)
    assert [s.name for s in plan.services] == ["on"] and service(plan, "on").nodes == ["n0"]


# -- implied services ----------------------------------------------------------------------


DYNAMO = TWO_NODE_ENGINE + '[frontend]\ntype = "dynamo"\n'


def test_dynamo_implies_etcd_nats_and_the_frontend(tmp_path: Path) -> None:
    plan = plan_of(tmp_path, DYNAMO, cluster="quad")
    assert plan.frontend == "dynamo"
    assert [(s.name, s.type, s.nodes, s.start, s.implied_by) for s in plan.services] == [
        ("etcd", "etcd", ["n0"], "infra", "frontend.type = dynamo"),
        ("nats", "nats", ["n0"], "infra", "frontend.type = dynamo"),
        ("frontend", "dynamo-frontend", ["n0"], "before_workers", "frontend.type = dynamo")]
    head_env = plan.head.env
    assert head_env["ETCD_ENDPOINTS"] == "http://10.9.1.10:2379"
    assert head_env["NATS_SERVER"] == "nats://10.9.1.10:4222"
    frontend = service(plan, "frontend")
    assert frontend.readiness.as_dict()["port"] == 8000
    assert frontend.instances[0].env["ETCD_ENDPOINTS"] == "http://10.9.1.10:2379"
    assert "ETCD_ENDPOINTS" not in service(plan, "nats").instances[0].env


def test_declared_entry_replaces_implied_and_keeps_its_type(tmp_path: Path) -> None:
    recipe = DYNAMO + svc('placement = { node = "dedicated" }\n'
                          'readiness = { timeout = 5 }\n', name="etcd")
    plan = plan_of(tmp_path, recipe, cluster="quad")
    etcd = service(plan, "etcd")
    assert (etcd.type, etcd.nodes, etcd.implied_by) == ("etcd", ["n2"], "frontend.type = dynamo")
    assert etcd.readiness.as_dict() == {"kind": "tcp", "port": 2379, "path": None,
                                        "pattern": None, "timeout": 5.0}
    assert [s.name for s in plan.services].count("etcd") == 1
    assert plan.head.env["ETCD_ENDPOINTS"] == "http://10.9.1.12:2379"


def test_enabled_false_drops_an_implied_service(tmp_path: Path) -> None:
    recipe = VLLM_MIN + "telemetry = true\n" + svc("enabled = false\n", name="node-exporter")
    plan = plan_of(tmp_path, recipe, cluster="quad")
    assert [s.name for s in plan.services] == ["dcgm-exporter"]
    assert "SPARKTUI_SERVICE_NODE_EXPORTER_NODES" not in plan.head.env


def test_telemetry_runs_on_every_compute_node(tmp_path: Path) -> None:
    recipe = VLLM_MIN + "telemetry = true\n" + svc('nodes = 2\ncommand = ["x"]\n', name="p")
    plan = plan_of(tmp_path, recipe, cluster="quad")
    dcgm = service(plan, "dcgm-exporter")
    assert dcgm.nodes == ["n0", "n1", "n2"] and dcgm.implied_by == "telemetry = true"
    assert [(m.name, m.port, m.nodes) for m in dcgm.metrics] == [
        ("dcgm-exporter", 9401, ["n0", "n1", "n2"])]
    assert [m.port for m in service(plan, "node-exporter").metrics] == [9101]
    assert "--gpus" in dcgm.instances[0].launch


def test_mooncake_kv_store_implies_the_master(tmp_path: Path) -> None:
    plan = plan_of(tmp_path, VLLM_MIN + "mooncake_kv_store = true\n", cluster="quad")
    (master,) = plan.services
    assert (master.name, master.type, master.implied_by) == (
        "mooncake-master", "mooncake-master", "mooncake_kv_store = true")
    assert master.readiness.port == 8700
    assert plan.head.env["MOONCAKE_MASTER"] == "10.9.1.10:8700"


def test_implied_frontend_takes_the_frontend_port_and_image(tmp_path: Path) -> None:
    recipe = DYNAMO + 'port = 9100\nimage = "dyn:2"\n'
    frontend = service(plan_of(tmp_path, recipe, cluster="quad"), "frontend")
    assert frontend.readiness.port == 9100 and frontend.image == "dyn:2"
    assert frontend.instances[0].launch[-3:] == ["dynamo.frontend", "--http-port", "9100"]


# -- placeholders and env ----------------------------------------------------------------------


def test_substitute_replaces_only_known_names() -> None:
    node = Node(name="n1", ssh_ip="10.0.0.2", ib_ip="192.168.0.2", rank=1)
    head = Node(name="n0", ssh_ip="10.0.0.1", rank=0)
    vals = values(index=1, node=node, head=head, pool=[head, node], gpus_per_node=4)
    assert set(vals) == set(NAMES)
    text = ("{index}|{node}|{node_ip}|{head_ip}|{pool_ip}|{pool_ips}|{pool_nodes}|"
            "{pool_node_count}|{gpus_per_node}|{other}|${HOME}|{{index}}|{ index}")
    assert substitute(text, vals) == ("1|n1|192.168.0.2|10.0.0.1|10.0.0.1|10.0.0.1,192.168.0.2|"
                                      "n0,n1|2|4|{other}|${HOME}|{{index}}|{ index}")


def test_placeholders_in_command_args_and_env(tmp_path: Path) -> None:
    recipe = SERVICES_ONLY + svc(
        'nodes = 2\ncommand = ["run", "--rank={index}", "--master={pool_ip}"]\n'
        'args = ["{pool_nodes}", "{gpus_per_node}", "{keep}"]\n'
        'env = { WHERE = "{node}@{node_ip}", ALL = "{pool_ips}/{pool_node_count}" }\n',
        name="t")
    plan = plan_of(tmp_path, recipe)
    second = service(plan, "t").instances[1]
    assert second.env == {"WHERE": "n1@10.9.1.11", "ALL": "10.9.1.10,10.9.1.11/2"}
    tail = second.launch[second.launch.index("--entrypoint"):]
    assert tail == ["--entrypoint", "run", "img:1", "--rank=1", "--master=10.9.1.10",
                    "n0,n1", "1", "{keep}"]


def test_services_do_not_inherit_recipe_env(tmp_path: Path) -> None:
    recipe = VLLM_MIN + svc('command = ["x"]\nenv = { MINE = "1" }\n', name="s") \
        + '\n[env]\nRECIPE_ONLY = "1"\n'
    plan = plan_of(tmp_path, recipe, cluster="quad")
    assert service(plan, "s").instances[0].env == {"MINE": "1"}
    assert plan.head.env["RECIPE_ONLY"] == "1"


def test_engine_and_terminal_services_get_service_nodes_env(tmp_path: Path) -> None:
    recipe = VLLM_MIN + svc('nodes = 2\ncommand = ["x"]\nterminal = true\n', name="my-job") \
        + svc('command = ["y"]\n', name="side")
    plan = plan_of(tmp_path, recipe, cluster="quad")
    expected = {"SPARKTUI_SERVICE_MY_JOB_NODES": "n1,n2",
                "SPARKTUI_SERVICE_MY_JOB_IPS": "10.9.1.11,10.9.1.12",
                "SPARKTUI_SERVICE_MY_JOB_NODE_COUNT": "2",
                "SPARKTUI_SERVICE_SIDE_NODES": "n0",
                "SPARKTUI_SERVICE_SIDE_IPS": "10.9.1.10",
                "SPARKTUI_SERVICE_SIDE_NODE_COUNT": "1"}
    assert expected.items() <= plan.head.env.items()
    assert expected.items() <= service(plan, "my-job").instances[0].env.items()
    assert service(plan, "side").instances[0].env == {}


def test_recipe_env_still_wins_in_the_engine(tmp_path: Path) -> None:
    recipe = VLLM_MIN + svc('command = ["y"]\n', name="side") \
        + '\n[env]\nSPARKTUI_SERVICE_SIDE_NODES = "mine"\n'
    env = plan_of(tmp_path, recipe, cluster="quad").head.env
    assert env["SPARKTUI_SERVICE_SIDE_NODES"] == "mine"
    assert list(env)[-1] == "SPARKTUI_SERVICE_SIDE_NODES"


# -- instances: names, labels, argv ------------------------------------------------------------


def test_instance_names_and_labels(tmp_path: Path) -> None:
    recipe = SERVICES_ONLY + svc('nodes = 2\ncommand = ["x"]\n', name="train") \
        + svc('placement = { pool = "train" }\ncommand = ["y"]\ncritical = false\n', name="w")
    plan = plan_of(tmp_path, recipe)
    names = [i.container for s in plan.services for i in s.instances]
    assert names == ["sparktui-demo--train-0", "sparktui-demo--train-1",
                     "sparktui-demo--w-0", "sparktui-demo--w-1"]
    launch = service(plan, "w").instances[1].launch
    labels = [launch[i + 1] for i, a in enumerate(launch) if a == "--label"]
    assert labels == ["sparktui.recipe=demo", "sparktui.cluster=quad", "sparktui.node=n1",
                      "sparktui.role=service", "sparktui.service=w",
                      "sparktui.service_type=generic", "sparktui.service_index=1",
                      "sparktui.start=before_workers", "sparktui.critical=false",
                      "sparktui.terminal=false", "sparktui.pool=train",
                      'sparktui.readiness={"kind":"none","port":null,"path":null,'
                      '"pattern":null,"timeout":300.0}', "sparktui.metrics=[]",
                      # what an engine has, blank: its image's labels say nothing
                      "sparktui.rank=", "sparktui.port=", "sparktui.after_stop=",
                      "sparktui.mem_share="]
    assert launch[:5] == ["docker", "run", "-d", "--name", "sparktui-demo--w-1"]
    assert launch[launch.index("--network"):][:2] == ["--network", "host"]


def test_no_command_runs_the_image_entrypoint_with_args(tmp_path: Path) -> None:
    recipe = SERVICES_ONLY + svc('image = "exp:1"\nargs = ["--port", "9"]\n', name="e")
    launch = service(plan_of(tmp_path, recipe), "e").instances[0].launch
    assert "--entrypoint" not in launch and launch[-3:] == ["exp:1", "--port", "9"]


def test_nats_max_payload_reaches_the_server_as_an_argument(tmp_path: Path) -> None:
    recipe = SERVICES_ONLY + svc('type = "nats"\noptions = { max_payload_mb = 24 }\n', name="n")
    launch = service(plan_of(tmp_path, recipe), "n").instances[0].launch
    assert launch[launch.index("--entrypoint") + 1] == "sh"
    assert launch[-1] == str(24 * 1024 * 1024) and "$1" in launch[-3]


def test_tmux_runtime_service(tmp_path: Path) -> None:
    recipe = SERVICES_ONLY + svc('runtime = "tmux"\ncommand = ["sleep", "{index}"]\n', name="s")
    inst = service(plan_of(tmp_path, recipe), "s").instances[0]
    assert inst.launch[:5] == ["tmux", "new-session", "-d", "-s", "sparktui-demo--s-0"]
    assert "SPARKTUI_LABEL_ROLE=service" in inst.launch
    # after the wait for its log (sparktui/plan/runtime/tmux.py)
    assert inst.launch[inst.launch.index("--") + 5:][:2] == ["sleep", "0"]


def test_mounts_expand_home(tmp_path: Path) -> None:
    recipe = SERVICES_ONLY + svc(
        'command = ["x"]\nmounts = [{ host = "~/d", container = "/d", read_only = true }]\n')
    launch = plan_of(tmp_path, recipe).services[0].instances[0].launch
    assert launch[launch.index("-v") + 1] == "/home/ops/d:/d:ro"


# -- readiness, metrics, phases -------------------------------------------------------------


@pytest.mark.parametrize(("spec", "expected"), [
    ("{ port = 80 }", ("tcp", 80, None, None, 300.0)),
    ('{ port = 80, path = "/h", timeout = 9 }', ("http", 80, "/h", None, 9.0)),
    ('{ kind = "http", port = 80 }', ("http", 80, "/", None, 300.0)),
    ('{ log = "listening on \\\\d+" }', ("log", None, None, "listening on \\d+", 300.0)),
    ('{ kind = "none" }', ("none", None, None, None, 300.0)),
])
def test_readiness_forms(tmp_path: Path, spec: str, expected: tuple) -> None:
    recipe = SERVICES_ONLY + svc(f'command = ["x"]\nreadiness = {spec}\n')
    ready = plan_of(tmp_path, recipe).services[0].readiness
    assert (ready.kind, ready.port, ready.path, ready.pattern, ready.timeout) == expected


def test_declared_metrics_replace_the_kind_default(tmp_path: Path) -> None:
    recipe = VLLM_MIN + "telemetry = true\n" + svc(
        'metrics = [\n  { port = 1, name = "a", nodes = "first" },\n'
        '  { port = 2, path = "/p", name = "b" },\n]\n', name="dcgm-exporter") \
        + svc("metrics = []\n", name="node-exporter")
    plan = plan_of(tmp_path, recipe, cluster="quad")
    assert [m.as_dict() for m in service(plan, "dcgm-exporter").metrics] == [
        {"name": "a", "port": 1, "path": "/metrics", "nodes": ["n0"]},
        {"name": "b", "port": 2, "path": "/p", "nodes": ["n0"]}]
    assert service(plan, "node-exporter").metrics == []


def _labels(launch: list[str]) -> dict[str, str]:
    pairs = [launch[i + 1].split("=", 1) for i, a in enumerate(launch) if a == "--label"]
    return {k.removeprefix("sparktui."): v for k, v in pairs}


def test_readiness_and_metrics_overrides_travel_as_labels(tmp_path: Path) -> None:
    recipe = VLLM_MIN + "telemetry = true\n" + svc(
        'command = ["x"]\nreadiness = { port = 81, path = "/up", timeout = 7 }\n'
        'metrics = { port = 82, path = "/stats", name = "side" }\n', name="side") \
        + svc("metrics = []\n", name="node-exporter")
    plan = plan_of(tmp_path, recipe, cluster="quad")
    side = service(plan, "side")
    for inst in side.instances:
        labels = _labels(inst.launch)
        assert json.loads(labels["readiness"]) == {"kind": "http", "port": 81, "path": "/up",
                                                   "pattern": None, "timeout": 7.0}
        assert json.loads(labels["metrics"]) == [m.as_dict() for m in side.metrics] == [
            {"name": "side", "port": 82, "path": "/stats", "nodes": side.nodes}]
    for inst in service(plan, "node-exporter").instances:  # none: not the kind's :9101
        assert _labels(inst.launch)["metrics"] == "[]"
    dcgm = service(plan, "dcgm-exporter").instances[0]  # the kind's own defaults, spelled out
    assert json.loads(_labels(dcgm.launch)["metrics"])[0]["port"] == 9401


def test_services_are_listed_in_phase_order(tmp_path: Path) -> None:
    recipe = VLLM_MIN + svc('command = ["x"]\nstart = "after_frontend"\n', name="late") \
        + svc('command = ["x"]\nstart = "infra"\n', name="early") + svc('command = ["x"]\n')
    plan = plan_of(tmp_path, recipe, cluster="quad")
    assert [(s.name, s.start) for s in plan.services] == [
        ("early", "infra"), ("a", "before_workers"), ("late", "after_frontend")]
    assert all(s.start in PHASES for s in plan.services)


def test_plans_without_services_are_unchanged(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, DUO, VLLM_MIN + "required_nodes = 2\n")
    assert plan.services == []
    assert not any(k.startswith("SPARKTUI_SERVICE_") for k in plan.head.env)


def test_services_only_recipe_loads_without_engine_fields(tmp_path: Path) -> None:
    rec = load_rec(tmp_path, dedent("""
        [[services]]
        name = "s"
        image = "busybox:1"
        command = ["sleep", "1"]
    """))
    assert rec.recipe.engine is None and rec.recipe.frontend_type == "none"
    plan = build_plan(load_cfg(tmp_path, QUAD), rec)
    assert plan.image == "" and plan.services[0].image == "busybox:1"


# -- Dynamo: dynamo.vllm's arguments, the frontend's address ----------------------------


def test_dynamo_vllm_workers_get_model_as_a_flag_and_no_http_flags(tmp_path: Path):
    recipe = (TWO_NODE_ENGINE + 'entrypoint = ["python3", "-m", "dynamo.vllm"]\n'
              + '[frontend]\ntype = "dynamo"\n')
    plan = plan_of(tmp_path, recipe, cluster="quad")
    for node in plan.nodes:
        program = node.launch[node.launch.index("img:1") + 1:]
        assert program[:5] == ["python3", "-m", "dynamo.vllm", "--model", "org/model"]
        for flag in ("--host", "--port", "--headless"):  # vllm serve's, not dynamo.vllm's
            assert flag not in program
        assert "-p" not in node.launch
    # The API is the frontend's: the plan, its labels (health reads them) and the header.
    frontend = next(s for s in plan.services if s.type == "dynamo-frontend")
    assert plan.port == frontend.readiness.port == 8000
    assert "sparktui.port=8000" in plan.head.launch
    header = render_text(plan).splitlines()[1]
    assert "port 8000 (the Dynamo frontend's" in header


def test_a_plain_vllm_head_keeps_its_api_flags(tmp_path: Path):
    plan = plan_of(tmp_path, TWO_NODE_ENGINE, cluster="quad")
    program = plan.head.launch[plan.head.launch.index("img:1") + 1:]
    assert program[:1] == ["org/model"]
    assert "--host" in program and "--port" in program and plan.port == 30000
    assert "--headless" in plan.nodes[1].launch
