"""Deterministic data for the sort/filter and inspect tests: four nodes with figures
that order differently by memory and by GPU, and a masked docker inspect."""

from __future__ import annotations

from polling import eventually_async, pausing

from sparktui.engine.status import ClusterHealth, NodeHealth
from sparktui.engine.telemetry.figures import NodeFigures, TelemetryFrame
from sparktui.engine.workloads.inspect import Described, mask
from tui.support import NOW

CLUSTER = "4nodes-switch"
GIB = 1 << 30
FIGURES = {"spark1": (40.0, 55.0, 20.0), "spark2": (10.0, 91.0, 70.0),
           "spark3": (25.0, 30.0, 99.0), "spark4": (80.0, 72.0, 5.0)}
"""cpu, mem, gpu %: by memory spark2, spark4, spark1, spark3; by GPU spark3, spark2, …"""


def four_health() -> ClusterHealth:
    return ClusterHealth(CLUSTER, [NodeHealth(n, True, latency_ms=1.0) for n in FIGURES],
                         NOW - 4)


def four_frame() -> TelemetryFrame:
    nodes = [NodeFigures(n, cpu_pct=c, mem_total=128 * GIB, mem_used=m / 100 * 128 * GIB,
                         mem_cache=4 * GIB, mem_available=(100 - m) / 100 * 128 * GIB,
                         mem_pct=m, swap_total=0, swap_used=0.0, gpu_util=g, gpu_power=40.0,
                         gpu_temp=50.0, disk_free=1 << 40, disk_total=2 << 40)
             for n, (c, m, g) in FIGURES.items()]
    return TelemetryFrame(CLUSTER, NOW - 1, 2.0, nodes)


SECRET = "hf_snapshot-secret-value"


def described() -> Described:
    item = {
        "Id": "4f1c2d3e" * 8, "Name": "/sparktui-qwen3-235b-2node",
        "Path": "vllm", "Args": ["serve", "nvidia/Qwen3-235B-A22B-FP4", "--port", "30000",
                                 "--hf-token", SECRET],
        "Image": "sha256:" + "ab12" * 16,
        "State": {"Status": "running", "StartedAt": "2025-06-15T12:51:40.123456789Z"},
        "Config": {
            "Image": "nvcr.io/nvidia/vllm:25.10-py3",
            "Env": [f"HF_TOKEN={SECRET}", "OPENAI_API_KEY=sk-abcdef123456",
                    "VLLM_HOST_IP=192.168.100.11", "NCCL_SOCKET_IFNAME=enp1s0f0np0",
                    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin"],
            "Labels": {"sparktui.recipe": "qwen3-235b-2node", "sparktui.cluster": "2nodes",
                       "sparktui.node": "spark1", "sparktui.role": "head",
                       "sparktui.rank": "0"}},
        "HostConfig": {"NetworkMode": "host", "IpcMode": "host"},
    }
    return Described("spark1", "sparktui-qwen3-235b-2node", mask(item))


async def show_four(pilot) -> None:
    """The four-node cluster in focus, with its health and figures shown."""
    from sparktui.tui.messages import ClusterFocused, HealthUpdated, TelemetryUpdated

    app = pilot.app
    await eventually_async(lambda: app.dashboard is not None and app.dashboard.is_mounted,
                           look=pausing(pilot))
    # behind the dashboard's own first ClusterFocused (posted when it mounts), not before
    app.dashboard.post_message(ClusterFocused(CLUSTER))
    nodes = app.dashboard.nodes
    await eventually_async(lambda: nodes.cluster is not None and nodes.cluster.name == CLUSTER,
                           look=pausing(pilot))
    app.dashboard.post_message(HealthUpdated(four_health()))
    app.dashboard.post_message(TelemetryUpdated(four_frame()))
    await eventually_async(lambda: nodes.telemetry is not None and len(nodes._row_nodes) == 4
                           and nodes.health is not None, look=pausing(pilot))
