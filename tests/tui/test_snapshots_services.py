"""Snapshots of the services pane fed by a health update (6 focuses it).

Update with: python -m pytest tests/tui/test_snapshots_services.py --snapshot-update
"""

from __future__ import annotations

from dataclasses import replace

from textual.pilot import Pilot

from sparktui.engine.status import (
    MetricsStatus,
    ServiceInstanceStatus,
    ServiceStatus,
    Workload,
)
from sparktui.tui.app import SparkApp
from sparktui.tui.messages import HealthUpdated
from sparktui.tui.widgets.services import ServicesPane
from tui.support import serving_health

SMALL = (120, 40)
LARGE = (200, 60)


def services_health(cluster: str = "2nodes"):
    """The serving cluster with etcd, NATS, a dcgm exporter on both nodes, and a finished
    terminal pool (one instance failed)."""
    def inst(node: str, index: int, svc: str, state: str = "running", ready: bool | None = True,
             probe: str = "", code: int | None = None) -> ServiceInstanceStatus:
        return ServiceInstanceStatus(node, index, f"sparktui-qwen3-235b-2node-{svc}-{index}",
                                     state, code, ready, probe)

    def dcgm(node: str, up: bool) -> MetricsStatus:
        if not up:
            return MetricsStatus("dcgm-exporter", node, 9401, "/metrics", False,
                                 error="ConnectionRefusedError")
        return MetricsStatus("dcgm-exporter", node, 9401, "/metrics", True, 3,
                             {"DCGM_FI_DEV_GPU_UTIL": 87.0, "DCGM_FI_DEV_GPU_TEMP": 61.0,
                              "DCGM_FI_DEV_POWER_USAGE": 142.5})

    services = [
        ServiceStatus("etcd", "qwen3-235b-2node", "etcd", True, False,
                      [inst("spark1", 0, "etcd", probe="tcp 2379")]),
        ServiceStatus("nats", "qwen3-235b-2node", "nats", True, False,
                      [inst("spark1", 0, "nats", probe="tcp 4222")]),
        ServiceStatus("dcgm-exporter", "qwen3-235b-2node", "dcgm-exporter", False, False,
                      [inst("spark1", 0, "dcgm-exporter", probe="tcp 9401"),
                       inst("spark2", 1, "dcgm-exporter", ready=False, probe="tcp 9401")],
                      [dcgm("spark1", True), dcgm("spark2", False)]),
        ServiceStatus("train", "qwen3-235b-2node", "generic", False, True,
                      [inst("spark1", 0, "train", "exited", None, code=0),
                       inst("spark2", 1, "train", "exited", None, code=3)], pool="train"),
    ]
    health = serving_health(cluster)
    extra = Workload(name="sparktui-qwen3-235b-2node-etcd-0", recipe="qwen3-235b-2node",
                     cluster=cluster, node="spark1", rank=0, role="service",
                     runtime="docker", state="running", status="Up 2 hours",
                     service="etcd", service_index=0)
    nodes = [replace(health.nodes[0], workloads=[*health.nodes[0].workloads, extra]),
             health.nodes[1]]
    return replace(health, nodes=nodes, services=services)


def _dashboard(pilot: Pilot):
    app = pilot.app
    assert isinstance(app, SparkApp) and app.dashboard is not None
    return app.dashboard


def _with_services(pilot_health):
    async def run_before(pilot: Pilot) -> None:
        _dashboard(pilot).post_message(HealthUpdated(pilot_health))
        await pilot.pause(0.1)
        await pilot.press("6")
        await pilot.pause(0.2)
    return run_before


def test_services_pane_120x40(snap_compare, app):
    assert snap_compare(app, terminal_size=SMALL, run_before=_with_services(services_health()))


def test_services_pane_200x60(snap_compare, app):
    assert snap_compare(app, terminal_size=LARGE, run_before=_with_services(services_health()))


def test_services_pane_empty_120x40(snap_compare, app):
    assert snap_compare(app, terminal_size=SMALL,
                        run_before=_with_services(serving_health()))


async def test_services_pane_follows_the_health_of_the_cluster_in_focus(app):
    async with app.run_test(size=SMALL) as pilot:
        dashboard = _dashboard(pilot)
        dashboard.post_message(HealthUpdated(services_health()))
        await pilot.pause(0.1)
        pane = dashboard.query_one(ServicesPane)
        assert pane.health is not None and [s.name for s in pane.health.services] == [
            "etcd", "nats", "dcgm-exporter", "train"]
        dashboard.post_message(HealthUpdated(serving_health()))
        await pilot.pause(0.1)
        assert pane.health is not None and pane.health.services == []
