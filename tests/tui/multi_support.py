"""Two recipes serving side by side on one cluster, deterministic: qwen3-235b-2node heads
on spark1 (worker on spark2, port 30000) and gpt-oss-120b-sglang heads on spark1 too
(port 30001, its own share of the node)."""

from __future__ import annotations

from sparktui.engine.status import ClusterHealth, EngineStatus, NodeHealth, Workload
from sparktui.engine.telemetry.figures import EngineFigures, TelemetryFrame, cluster_total
from tui.support import NOW
from tui.telemetry_support import _wave, telemetry_frame

QWEN, OSS = "qwen3-235b-2node", "gpt-oss-120b-sglang"


def _work(recipe: str, node: str, rank: int, role: str, port: int, share: float) -> Workload:
    return Workload(name=f"sparktui-{recipe}", recipe=recipe, cluster="2nodes", node=node,
                    rank=rank, role=role, runtime="docker", state="running",
                    status="Up 2 hours", port=port, image="nvcr.io/nvidia/vllm:25.10-py3",
                    started_at="2025-06-15T12:51:40.123456789Z", mem_share=share)


def two_recipes_health() -> ClusterHealth:
    qwen = EngineStatus(health_ok=True, ready=True, models=["qwen3-235b"], running=2,
                        waiting=1, kv_cache=0.31, recipe=QWEN, port=30000)
    oss = EngineStatus(health_ok=True, ready=True, models=["openai/gpt-oss-120b"], running=1,
                       waiting=0, kv_cache=0.12, recipe=OSS, port=30001)
    return ClusterHealth(cluster="2nodes", checked_at=NOW - 4, nodes=[
        NodeHealth("spark1", True, latency_ms=1.2,
                   workloads=[_work(QWEN, "spark1", 0, "head", 30000, 0.5),
                              _work(OSS, "spark1", 0, "head", 30001, 0.35)],
                   engines=[oss, qwen]),
        NodeHealth("spark2", True, latency_ms=1.4,
                   workloads=[_work(QWEN, "spark2", 1, "worker", 30000, 0.5)]),
    ])


def two_recipes_frame(n: int = 60) -> TelemetryFrame:
    base = telemetry_frame(alerts=False, n=n)
    engines = [
        EngineFigures("spark1", 30001, running=1, waiting=0, kv_cache=0.12, prompt_tps=310.0,
                      gen_tps=95.0, ttft_p50=0.09, ttft_p95=0.21, recipe=OSS),
        EngineFigures("spark1", 30000, running=2, waiting=1, kv_cache=0.47, prompt_tps=1840.0,
                      gen_tps=412.0, ttft_p50=0.182, ttft_p95=0.64, recipe=QWEN),
    ]
    history = {**base.history,
               f"engine[{OSS}].gen_tps": _wave(n, 90, 30, 13),
               f"engine[{OSS}].kv_cache": _wave(n, 0.12, 0.05, 17),
               f"engine[{QWEN}].gen_tps": _wave(n, 380, 120, 23),
               f"engine[{QWEN}].kv_cache": _wave(n, 0.45, 0.2, 29)}
    return TelemetryFrame("2nodes", NOW - 1, 2.0, base.nodes, cluster_total(engines), [],
                          history, engines)
