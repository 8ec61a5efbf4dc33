"""The pure parts of the services engine: label parsing, stop order, exit codes, states."""

from __future__ import annotations

import json

import pytest

from sparktui.engine.services.labels import metrics, readiness, teardown_groups
from sparktui.engine.services.launch import worst_exit
from sparktui.engine.status import ServiceInstanceStatus, ServiceStatus, Workload
from sparktui.engine.workloads.discover import parse_discovery
from sparktui.plan.service_model import Readiness


def _svc(name: str, **labels: str) -> Workload:
    labels = {"role": "service", "service": name, **labels}
    return Workload(name=f"sparktui-r--{name}-0", recipe="r", cluster="c", node="n1", rank=0,
                    role="service", runtime="docker", state="running", service=name,
                    service_index=0, labels=labels)


@pytest.mark.parametrize(("label", "expected"), [
    ("tcp:2379", Readiness("tcp", port=2379)),
    ("http:8080/health", Readiness("http", port=8080, path="/health")),
    ("log:ready to serve", Readiness("log", pattern="ready to serve")),
    ("none", Readiness("none")),
    (json.dumps(Readiness("http", port=9, path="/x", timeout=5).as_dict()),
     Readiness("http", port=9, path="/x", timeout=5)),
    ("tcp:99999", Readiness("tcp", port=None)),
    ("bogus", None),
])
def test_readiness_label(label, expected):
    assert readiness(_svc("s", readiness=label)) == expected


def test_readiness_and_metrics_fall_back_to_the_kinds_defaults():
    etcd = _svc("etcd", service_type="etcd")
    assert readiness(etcd) == Readiness("tcp", port=2379, timeout=60.0)
    dcgm = metrics(_svc("gpu", service_type="dcgm-exporter"))
    assert [(m.name, m.port, m.path) for m in dcgm] == [("gpu", 9401, "/metrics")]
    assert readiness(_svc("x", service_type="no-such-kind")) is None
    assert metrics(_svc("x")) == []


def test_metrics_label_forms():
    listed = json.dumps([{"name": "a", "port": 9100, "path": "/m", "nodes": ["n1"]},
                         {"port": "bad"}])
    assert [(m.name, m.port, m.path, m.nodes) for m in metrics(_svc("s", metrics=listed))] == [
        ("a", 9100, "/m", ["n1"])]
    short = metrics(_svc("s", metrics="a:9100/m, b:9200"))
    assert [(m.name, m.port, m.path) for m in short] == [("a", 9100, "/m"),
                                                          ("b", 9200, "/metrics")]
    assert metrics(_svc("s", metrics="[not json")) == []


def test_teardown_groups_last_phase_first_and_critical_last():
    ws = [_svc("etcd", start="infra", critical="true"),
          _svc("dcgm", start="infra", critical="false"),
          _svc("nats", start="before_workers", critical="true"),
          _svc("warmup", start="after_frontend", critical="false")]
    groups = [[w.service for w in g] for g in teardown_groups(ws)]
    assert groups == [["warmup"], ["dcgm"], ["nats"], ["etcd"]]


@pytest.mark.parametrize(("codes", "worst"), [
    ([0, 0], 0), ([0, 3], 3), ([137, 1, 0], 137), ([], 0), ([-1, 0], -1)])
def test_worst_exit(codes, worst):
    assert worst_exit(codes) == worst


@pytest.mark.parametrize(("instances", "state"), [
    ([("running", None, True), ("running", None, True)], "ready"),
    ([("running", None, True), ("running", None, False)], "starting"),
    ([("exited", 0, None), ("exited", 0, None)], "exited"),
    ([("exited", 0, None), ("exited", 3, None)], "failed"),
    ([("running", None, None), ("exited", 0, None)], "partial"),
])
def test_service_state(instances, state):
    svc = ServiceStatus("s", "r", "generic", False, False, [
        ServiceInstanceStatus(f"n{i}", i, f"c{i}", st, code, ready)
        for i, (st, code, ready) in enumerate(instances)])
    assert svc.state == state


def test_discovery_reads_service_labels_and_keeps_them_out_of_json():
    inspect = [{"Name": "/sparktui-r--etcd-0", "RestartCount": 0,
                "State": {"Status": "exited", "ExitCode": 3},
                "Config": {"Image": "etcd", "Labels": {
                    "sparktui.recipe": "r", "sparktui.cluster": "c", "sparktui.node": "n1",
                    "sparktui.role": "service", "sparktui.service": "etcd",
                    "sparktui.service_index": "2", "sparktui.critical": "true"}}}]
    (w,) = parse_discovery("n1", json.dumps(inspect)).workloads
    assert (w.is_service, w.service, w.service_index, w.exit_code) == (True, "etcd", 2, 3)
    assert w.labels["critical"] == "true" and "labels" not in w.as_dict()
