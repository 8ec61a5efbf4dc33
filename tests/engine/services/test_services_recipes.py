"""Acceptance on real recipes: ``[[services]]`` planned by build_plan, served, checked and
stopped through the CLI on four sshd test hosts (the docker stand-in plays each service)."""

from __future__ import annotations

import json

from lookalike import Why
from site_support import toy_recipe

from sparktui.cli import main

# A look-alike, not the real vLLM (tests/lookalike.py): services beside an engine that is never
# ready; 2- and 4-node groups.
LOOKALIKE = (Why.SERVICES, Why.FAULT, Why.MULTI_NODE)

POOLS = """\
description = "toy pools: a terminal 2-node pool, a rider on it, a 2-node data pool"
docker_image = "busybox:1"

[frontend]
type = "none"

[[services]]
name = "data"
nodes = 2
command = ["data-server", "--port", "7100"]
readiness = { port = 7100, timeout = 20 }

[[services]]
name = "train"
nodes = 2
terminal = true
start = "after_frontend"
command = ["sh", "-c", "echo rank {index} of {pool_node_count} at {pool_ip}; sleep 1; EXIT"]

[[services]]
name = "watcher"
placement = { pool = "train" }
command = ["sleep", "600"]
critical = false
"""

PHASES = """
[[services]]
name = "etcd"
type = "etcd"

[[services]]
name = "nats"
type = "nats"

[[services]]
name = "prep"
start = "before_workers"
command = ["sh", "-c", "echo prepared; sleep 600"]

[[services]]
name = "warmup"
start = "after_frontend"
command = ["sh", "-c", "echo warming up; sleep 600"]
"""


def _all_names(s, node: str) -> list[str]:
    return s.hosts.ssh(node, "docker ps -a --format '{{.Names}}'").stdout.split()


def _run_times(s, nodes: list[str]) -> list[tuple[float, str]]:
    found = []
    for node in nodes:
        for record in s.hosts.node(node).docker_records():
            argv = record["argv"]
            if argv[1:2] == ["run"]:
                found.append((record["time"], argv[argv.index("--name") + 1]))
    return sorted(found)


def test_toy_pools_recipe_served_checked_and_stopped(site, capsys):
    s = site(4)
    s.recipe("pools", POOLS.replace("EXIT", "exit $(( {index} * 3 ))"))
    assert main(s.cli("serve", "pools")) == 3  # train[1] exits 3, train[0] 0: the worst
    out = capsys.readouterr().out
    assert "terminal services exited with code 3" in out

    assert main(s.cli("health", "--json")) == 0
    services = {svc["name"]: svc for svc in json.loads(capsys.readouterr().out)["services"]}
    assert set(services) == {"data", "train", "watcher"}
    data, train, watcher = services["data"], services["train"], services["watcher"]
    train_nodes = [i["node"] for i in train["instances"]]
    assert [i["node"] for i in watcher["instances"]] == train_nodes  # the rider
    assert sorted([i["node"] for i in data["instances"]] + train_nodes) == [
        "node1", "node2", "node3", "node4"]  # two pools of two whole nodes
    assert [i["exit_code"] for i in train["instances"]] == [0, 3]
    assert all(i["state"] == "running" for i in watcher["instances"])
    logs = s.hosts.ssh(train_nodes[1], "docker logs sparktui-pools--train-1").stdout
    assert "rank 1 of 2 at " in logs

    assert main(s.cli("stop", "--yes")) == 0
    for node in ("node1", "node2", "node3", "node4"):
        assert _all_names(s, node) == []


def test_etcd_nats_and_exporters_around_the_engine_in_phase_order(site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe(nodes=2, extra="telemetry = true") + PHASES)
    assert main(s.cli("serve", "toy")) == 0
    capsys.readouterr()
    order = [name for _t, name in _run_times(s, ["node1", "node2"])]
    index = {name: order.index(name) for name in order}
    engine = [index["sparktui-toy"]]
    infra = [i for n, i in index.items() if n.split("--")[-1].rsplit("-", 1)[0] in
             ("etcd", "nats", "dcgm-exporter", "node-exporter")]
    prep = [i for n, i in index.items() if "--prep-" in n]
    warmup = [i for n, i in index.items() if "--warmup-" in n]
    assert len(infra) >= 4 and prep and warmup
    assert max(infra) < min(prep) and max(prep) < min(engine) and max(engine) < min(warmup)

    assert main(s.cli("health", "--json")) == 0
    health = json.loads(capsys.readouterr().out)
    assert health["serving"]
    services = {svc["name"]: svc for svc in health["services"]}
    assert services["etcd"]["state"] == "ready" and services["nats"]["state"] == "ready"
    dcgm = services["dcgm-exporter"]["metrics"]
    assert dcgm and all(m["up"] and m["headline"]["DCGM_FI_DEV_GPU_UTIL"] == 87 for m in dcgm)

    assert main(s.cli("stop", "--yes")) == 0
    for node in ("node1", "node2"):
        assert _all_names(s, node) == []


def test_a_crashed_service_fails_serve_and_rolls_back_the_engine_too(site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe(nodes=2) + """
[[services]]
name = "warmup"
start = "after_frontend"
command = ["sh", "-c", "echo cannot reach the API; exit 9"]
readiness = { port = 7300, timeout = 60 }
""")
    assert main(s.cli("serve", "toy")) == 1
    err = capsys.readouterr().err
    assert "exit code 9" in err and "cannot reach the API" in err
    for node in ("node1", "node2"):
        assert _all_names(s, node) == []


def test_tmux_services_are_gated_found_and_stopped_like_containers(site, capsys):
    s = site(2)
    s.recipe("host", """\
docker_image = "unused"

[[services]]
name = "ticker"
runtime = "tmux"
nodes = 2
command = ["sh", "-c", "echo ticker {index} up; sleep 600"]
readiness = { log = "ticker [0-9] up", timeout = 20 }
""")
    assert main(s.cli("serve", "host")) == 0
    out = capsys.readouterr().out
    assert out.count("ready (log /ticker [0-9] up/)") == 2  # the log gate, per instance
    assert main(s.cli("health", "--json")) == 0
    (ticker,) = json.loads(capsys.readouterr().out)["services"]
    assert ticker["pool"] == "ticker"
    assert [(i["node"], i["state"]) for i in ticker["instances"]] == [
        ("node1", "running"), ("node2", "running")]
    assert main(s.cli("stop", "--yes")) == 0
    for node in ("node1", "node2"):
        sessions = s.hosts.ssh(node, "tmux ls -F '#{session_name}' 2>/dev/null; true")
        assert sessions.stdout.split() == []


def test_a_critical_service_crashing_while_the_engine_loads_fails_serve_at_once(site, capsys):
    # The engine never gets ready and serve waits an hour for it: only the crash can end it.
    s = site(2, top="ready_timeout_seconds = 3600")
    s.recipe("toy", toy_recipe(nodes=2, env='STANDIN_READY_AFTER = "36000"') + """
[[services]]
name = "coord"
command = ["sh", "-c", "echo coord up; sleep 2; echo lost quorum; exit 4"]
readiness = { log = "coord up", timeout = 20 }
""")
    assert main(s.cli("serve", "toy")) == 1
    err = capsys.readouterr().err
    assert "/v1/models" not in err  # failed by the crash, not by the engine's readiness
    assert "coord[0]" in err and "exit code 4" in err and "lost quorum" in err
    for node in ("node1", "node2"):  # rolled back: the engine and the service
        assert _all_names(s, node) == []


def test_a_non_critical_service_crashing_while_the_engine_loads_is_only_reported(site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe(nodes=2, env='STANDIN_READY_AFTER = "4"') + """
[[services]]
name = "sidecar"
critical = false
command = ["sh", "-c", "echo sidecar up; exit 2"]
""")
    assert main(s.cli("serve", "toy")) == 0
    out = capsys.readouterr().out
    assert out.count("sidecar[0]: sparktui-toy--sidecar-0 exited with exit code 2") == 1
    assert main(s.cli("stop", "--yes")) == 0


def test_health_shows_a_recipes_own_readiness_and_metrics(site, capsys):
    s = site(2)
    s.recipe("side", """\
docker_image = "busybox:1"

[[services]]
name = "side"
nodes = 2
command = ["data-server", "--port", "7150"]
readiness = { port = 7150, path = "/ready", timeout = 20 }
metrics = { port = 7150, path = "/stats", name = "side-stats", nodes = "first" }

[[services]]
name = "node-exporter"
type = "node-exporter"
placement = { pool = "side" }
metrics = []
""")
    assert main(s.cli("serve", "side")) == 0
    capsys.readouterr()
    assert main(s.cli("health", "--json")) == 0
    services = {svc["name"]: svc for svc in json.loads(capsys.readouterr().out)["services"]}
    side = services["side"]
    assert [(i["readiness"], i["ready"]) for i in side["instances"]] == [
        ("http 7150/ready", True), ("http 7150/ready", True)]
    assert [(m["name"], m["node"], m["port"], m["path"]) for m in side["metrics"]] == [
        ("side-stats", side["instances"][0]["node"], 7150, "/stats")]
    assert services["node-exporter"]["metrics"] == []  # not the kind's :9101
    assert main(s.cli("stop", "--yes")) == 0
