"""Services launched by serve on real sshd test hosts, the docker stand-in playing them."""

from __future__ import annotations

import asyncio

from lookalike import Why
from service_support import service, services_only, with_services
from site_support import Recorder, toy_recipe

from sparktui.plan.service_model import MetricsEndpoint, Readiness
from sparktui.tui.actions import Action
from sparktui.tui.screens.progress import serve_failure_note
from sparktui.tui.viewmodel.runs import ActionRun

# A look-alike, not the real vLLM (tests/lookalike.py): etcd, NATS, exporters beside the engine;
# 2-node groups.
LOOKALIKE = (Why.SERVICES, Why.SPEED, Why.MULTI_NODE)


def _nodes(s):
    return s.loaded.config.clusters[0].ranked


def _all_names(s, node: str) -> list[str]:
    return s.hosts.ssh(node, "docker ps -a --format '{{.Names}}'").stdout.split()


def _serve(s, plan, rec, *, keep: bool = False, health: bool = False):
    async def go():
        engine = s.engine()
        try:
            result = await engine.serve(plan, rec, keep_on_failure=keep)
            checked = await engine.health(plan.cluster) if health else None
            return result, checked
        finally:
            await engine.close()
    return asyncio.run(go())


def _docker_log(s, node: str) -> list[dict]:
    return s.hosts.node(node).docker_records()


def _first_time(s, verb: str) -> float:
    return min(r["time"] for node in _nodes(s) for r in _docker_log(s, node.name)
               if r["argv"][1:2] == [verb])


def _timeline(s, verb: str) -> list[str]:
    """Container names given to `docker <verb>` on every node, in time order."""
    events = []
    for node in _nodes(s):
        for record in _docker_log(s, node.name):
            argv = record["argv"]
            if argv[1:2] == [verb]:
                name = argv[argv.index("--name") + 1] if verb == "run" else argv[-1]
                events.append((record["time"], f"{node.name}:{name}"))
    return [name for _t, name in sorted(events)]


def test_log_and_http_readiness_gate_and_health_reads_them_back(site):
    s = site(2)
    n1, n2 = _nodes(s)
    etcd = service("etcd", [n1], ["etcd", "--listen-client-urls", "http://0.0.0.0:2379"],
                   image="quay.io/coreos/etcd:v3.5.17", type="etcd", critical=True,
                   readiness=Readiness("log", pattern=r"ready to serve client requests",
                                       timeout=20))
    exporter = service("node-exporter", [n1, n2], ["--web.listen-address=:9101"],
                       image="prom/node-exporter:v1.8.2", type="node-exporter",
                       readiness=Readiness("http", port=9101, path="/metrics", timeout=20),
                       metrics=[MetricsEndpoint("node-exporter", 9101, "/metrics",
                                                [n1.name, n2.name])])
    rec = Recorder()
    result, health = _serve(s, services_only("test", [etcd, exporter]), rec, health=True)
    assert result.ok, result
    assert result.exit_code is None
    ready = [str(e.detail) for e in rec.events if e.step == "service" and e.state == "ok"]
    assert any(d.startswith("etcd[0]: ready (log") for d in ready)
    assert any(d.startswith("node-exporter[1]: ready (http 9101/metrics)") for d in ready)
    by_name = {svc.name: svc for svc in health.services}
    assert set(by_name) == {"etcd", "node-exporter"}
    assert by_name["etcd"].critical and by_name["etcd"].state == "ready"
    assert [(i.node, i.state, i.ready) for i in by_name["node-exporter"].instances] == [
        ("node1", "running", True), ("node2", "running", True)]
    scraped = by_name["node-exporter"].metrics
    assert [(m.node, m.up) for m in scraped] == [("node1", True), ("node2", True)]
    assert scraped[0].headline["node_load1"] == 0.42 and scraped[0].samples >= 3
    assert health.as_dict()["services"][0]["name"] == "etcd"


def test_etcd_and_nats_start_before_the_engine_and_exporters_after_it(site):
    s = site(2)
    s.recipe("toy", toy_recipe(nodes=2))
    base = s.plan("toy")
    n1, n2 = _nodes(s)
    etcd = service("etcd", [n1], ["etcd"], image="quay.io/coreos/etcd:v3.5.17", type="etcd",
                   critical=True, recipe="toy", readiness=Readiness("tcp", port=2379))
    nats = service("nats", [n1], ["nats-server", "--port", "4222"], image="nats:2.10",
                   type="nats", start="before_workers", critical=True, recipe="toy",
                   readiness=Readiness("tcp", port=4222))
    dcgm = service("dcgm-exporter", [n1, n2], [], image="nvcr.io/nvidia/k8s/dcgm-exporter:4",
                   type="dcgm-exporter", start="after_frontend", recipe="toy",
                   readiness=Readiness("tcp", port=9401),
                   metrics=[MetricsEndpoint("dcgm-exporter", 9401, "/metrics",
                                            [n1.name, n2.name])])
    plan = with_services(base, [dcgm, nats, etcd])  # declaration order is not start order
    result, health = _serve(s, plan, Recorder(), health=True)
    assert result.ok, result
    runs = _timeline(s, "run")
    assert runs[:4] == ["node1:sparktui-toy-etcd-0", "node1:sparktui-toy-nats-0",
                        "node2:sparktui-toy", "node1:sparktui-toy"]  # workers, then the head
    assert set(runs[4:]) == {"node1:sparktui-toy-dcgm-exporter-0",
                             "node2:sparktui-toy-dcgm-exporter-1"}
    assert health.serving
    dcgm_health = next(svc for svc in health.services if svc.name == "dcgm-exporter")
    assert all(m.up and m.headline["DCGM_FI_DEV_GPU_UTIL"] == 87 for m in dcgm_health.metrics)

    async def stop():
        engine = s.engine()
        try:
            return await engine.stop("test", Recorder())
        finally:
            await engine.close()

    assert asyncio.run(stop()).ok
    order = _timeline(s, "stop")
    # the engine first: its head is told to stop (SIGTERM) before any member is stopped
    assert _timeline(s, "kill") == ["node1:sparktui-toy"]
    assert _first_time(s, "kill") <= _first_time(s, "stop")
    assert set(order[:2]) == {"node1:sparktui-toy", "node2:sparktui-toy"}
    assert set(order[2:4]) == {"node1:sparktui-toy-dcgm-exporter-0",
                               "node2:sparktui-toy-dcgm-exporter-1"}
    assert order[4:] == ["node1:sparktui-toy-nats-0", "node1:sparktui-toy-etcd-0"]
    assert _all_names(s, "node1") == [] and _all_names(s, "node2") == []


def test_readiness_timeout_fails_and_rolls_back_every_service_started(site):
    s = site(2)
    n1, n2 = _nodes(s)
    etcd = service("etcd", [n1], ["etcd"], image="quay.io/coreos/etcd:v3.5.17", type="etcd",
                   readiness=Readiness("tcp", port=2379))
    mute = service("mute", [n1, n2], ["sleep", "600"], start="before_workers",
                   readiness=Readiness("tcp", port=7999, timeout=1.5))
    rec = Recorder()
    result, _ = _serve(s, services_only("test", [etcd, mute]), rec)
    assert not result.ok
    assert result.failed_step == "service"
    assert "not ready (tcp 7999) after 1.5 s" in str(result.detail)
    rolled = sorted(e.detail for e in rec.events if e.step == "rollback" and e.state == "ok")
    assert rolled == ["sparktui-svc-etcd-0", "sparktui-svc-mute-0", "sparktui-svc-mute-1"]
    assert _all_names(s, "node1") == [] and _all_names(s, "node2") == []
    assert s.hosts.node("node1").processes(r"sleep 600") == []


def test_a_crashed_instance_fails_at_once_with_its_exit_code_and_last_lines(site):
    s = site(2)
    n1, n2 = _nodes(s)
    store = service("store", [n1, n2], ["sh", "-c", "echo store {index} failed to bind; exit 7"],
                    readiness=Readiness("tcp", port=7998, timeout=3600))
    # An hour's readiness timeout: only noticing the crash can end this serve.
    result, _ = _serve(s, services_only("test", [store]), Recorder())
    assert "not ready" not in str(result.detail)
    assert not result.ok and result.failed_step == "service"
    assert "exit code 7" in str(result.detail)
    assert "failed to bind" in str(result.detail)  # the instance's last log lines
    assert _all_names(s, "node1") == [] and _all_names(s, "node2") == []


def test_keep_on_failure_leaves_the_failed_service_for_a_post_mortem(site):
    s = site(2)
    n1, _n2 = _nodes(s)
    store = service("store", [n1], ["sh", "-c", "exit 5"],
                    readiness=Readiness("tcp", port=7997, timeout=30))
    rec = Recorder()
    result, _ = _serve(s, services_only("test", [store]), rec, keep=True)
    assert not result.ok and "exit code 5" in str(result.detail)
    assert _all_names(s, "node1") == ["sparktui-svc-store-0"]
    # The dashboard's progress view tells the truth about it: something is left running.
    run = ActionRun(1, Action.SERVE, "test", "svc", 0.0, events=list(rec.events), result=result)
    note = serve_failure_note(run)
    assert "Nothing was started" not in note and "still on the cluster" in note
