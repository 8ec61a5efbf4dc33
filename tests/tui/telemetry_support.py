"""A deterministic telemetry frame for the dashboard and wall snapshots."""

from __future__ import annotations

import math

from sparktui.engine.telemetry.figures import Alert, EngineFigures, NodeFigures, TelemetryFrame
from tui.support import NOW

GIB = 1 << 30


def _wave(n: int, base: float, amp: float, period: float, phase: float = 0.0) -> tuple:
    return tuple(base + amp * math.sin(2 * math.pi * i / period + phase) for i in range(n))


def telemetry_frame(cluster: str = "2nodes", alerts: bool = True, n: int = 60
                    ) -> TelemetryFrame:
    """spark1 heads a busy engine at 93% memory; spark2 works; two alerts, one cleared."""
    nodes = [
        NodeFigures("spark1", cpu_pct=37.0, mem_total=128 * GIB, mem_used=104 * GIB,
                    mem_cache=15 * GIB, mem_available=9 * GIB, mem_pct=93.0,
                    swap_total=16 * GIB, swap_used=0.0, gpu_util=96.0, gpu_power=61.4,
                    gpu_temp=71.0, gpu_mem_used=None, disk_path="/root/.cache/huggingface",
                    disk_free=1.3 * (1 << 40), disk_total=3.7 * (1 << 40),
                    kernel=["2025-06-15T14:58:02,120000+00:00 NVRM: NV_ERR_NO_MEMORY"]),
        NodeFigures("spark2", cpu_pct=12.0, mem_total=128 * GIB, mem_used=88 * GIB,
                    mem_cache=20 * GIB, mem_available=36 * GIB, mem_pct=72.0,
                    swap_total=16 * GIB, swap_used=512 * (1 << 20), gpu_util=91.0,
                    gpu_power=55.0, gpu_temp=66.0, disk_free=2.1 * (1 << 40)),
    ]
    engine = EngineFigures("spark1", 30000, running=2, waiting=1, kv_cache=0.47,
                           prompt_tps=1840.0, gen_tps=412.0, ttft_p50=0.182, ttft_p95=0.64,
                           tpot_p50=0.021, tpot_p95=0.034)
    history = {
        "spark1.cpu_pct": _wave(n, 35, 20, 17), "spark1.mem_pct": _wave(n, 88, 5, 40),
        "spark1.gpu_util": _wave(n, 80, 18, 11),
        "spark2.cpu_pct": _wave(n, 15, 10, 13, 1), "spark2.mem_pct": _wave(n, 70, 3, 30),
        "spark2.gpu_util": _wave(n, 75, 20, 9, 2),
        "engine.gen_tps": _wave(n, 380, 120, 23), "engine.prompt_tps": _wave(n, 1500, 600, 19),
        "engine.kv_cache": _wave(n, 0.45, 0.2, 29), "engine.running": _wave(n, 2, 1, 7),
        "engine.ttft_p95": _wave(n, 0.5, 0.2, 31),
    }
    found = []
    if alerts:
        found = [
            Alert("memory:spark1", "memory", "spark1", NOW - 95, 93.0),
            Alert("kv:spark1", "kv", "spark1", NOW - 600, 0.97, cleared=NOW - 300),
        ]
    return TelemetryFrame(cluster, NOW - 1, 2.0, nodes, engine, found, history)
