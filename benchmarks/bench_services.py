"""Services figures on the real sshd test hosts (tests/hosts); prints ratios.

    python benchmarks/bench_services.py [--rounds 20]

- a health check of 2 nodes running an engine plus 6 service instances (etcd, NATS,
  dcgm/node exporters on both nodes, readiness probed and metrics scraped) vs the
  same engine alone (goal: at most 2x: the dashboard refreshes health every 2 s)
- serve of a services-only plan of 4 instances gated on TCP readiness: wall time
  per instance vs launching them one by one (goal: launching together wins)
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "engine" / "services"))

from hosts.cluster import TestCluster  # noqa: E402
from service_support import service, services_only  # noqa: E402

from sparktui.config.loader import load_config, load_recipe  # noqa: E402
from sparktui.engine.cluster import ClusterEngine  # noqa: E402
from sparktui.engine.remote.hostkeys import init_host_keys  # noqa: E402
from sparktui.plan.build import build_plan  # noqa: E402
from sparktui.plan.service_model import MetricsEndpoint, Readiness  # noqa: E402

ENGINE = """engine = "vllm"
docker_image = "vllm:test"
model = "org/toy"
port = 30011
required_nodes = 2
tensor_parallel_size = 2
entrypoint = ["vllm", "serve"]
"""


def _quiet(_event) -> None:
    pass


async def _median_health(engine: ClusterEngine, rounds: int) -> float:
    await engine.health("test")
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        health = await engine.health("test")
        times.append(time.perf_counter() - started)
        assert health.all_reachable
    return statistics.median(times)


def bench_health(root: Path, rounds: int) -> None:
    with TestCluster(n=2) as hosts:
        loaded = load_config(hosts.write_config(root / "config.toml"))
        asyncio.run(init_host_keys(loaded.config, loaded.config.clusters[0].nodes))
        (root / "r" / "toy").mkdir(parents=True)
        (root / "r" / "toy" / "recipe.toml").write_text(ENGINE)
        plan = build_plan(loaded, load_recipe(root / "r" / "toy" / "recipe.toml"))
        nodes = loaded.config.clusters[0].ranked

        async def go() -> tuple[float, float]:
            engine = ClusterEngine(loaded.config)
            try:
                assert (await engine.serve(plan, _quiet)).ok
                alone = await _median_health(engine, rounds)
                extra = [
                    service("etcd", nodes[:1], ["etcd"], image="etcd:3", type="etcd",
                            recipe="toy", readiness=Readiness("tcp", port=2379)),
                    service("nats", nodes[:1], ["nats-server"], image="nats:2", type="nats",
                            recipe="toy", readiness=Readiness("tcp", port=4222)),
                    *(service(n, nodes, [f"--web.listen-address=:{p}"], image=f"{n}:1",
                              type=n, recipe="toy", readiness=Readiness("tcp", port=p),
                              metrics=[MetricsEndpoint(n, p, "/metrics", [x.name for x in nodes])])
                      for n, p in (("dcgm-exporter", 9401), ("node-exporter", 9101))),
                ]
                assert (await engine.serve(services_only("test", extra, recipe="toy"),
                                           _quiet)).ok
                with_services = await _median_health(engine, rounds)
                await engine.stop("test", _quiet)
                return alone, with_services
            finally:
                await engine.close()

        alone, with_services = asyncio.run(go())
        print(f"health, engine alone:            {alone * 1000:7.1f} ms")
        print(f"health, engine + 6 instances:    {with_services * 1000:7.1f} ms")
        print(f"ratio (goal <= 2x):              {with_services / alone:7.2f}x")


def bench_launch(root: Path) -> None:
    with TestCluster(n=4) as hosts:
        loaded = load_config(hosts.write_config(root / "config4.toml"))
        asyncio.run(init_host_keys(loaded.config, loaded.config.clusters[0].nodes))
        nodes = loaded.config.clusters[0].ranked
        ready = Readiness("tcp", port=7100, timeout=30)

        def svc(name: str, on):
            return service(name, on, ["store", "--port", "7100"], readiness=ready)

        async def timed(plan) -> float:
            engine = ClusterEngine(loaded.config)
            try:
                started = time.perf_counter()
                assert (await engine.serve(plan, _quiet)).ok
                took = time.perf_counter() - started
                await engine.stop("test", _quiet)
                return took
            finally:
                await engine.close()

        together = asyncio.run(timed(services_only("test", [svc("pool", nodes)])))
        apart = asyncio.run(timed(services_only(
            "test", [svc(f"one{i}", [n]) for i, n in enumerate(nodes)])))
        print(f"serve 4 instances together:      {together * 1000:7.0f} ms")
        print(f"serve 4 instances one by one:    {apart * 1000:7.0f} ms")
        print(f"speed-up (goal > 1x):            {apart / together:7.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-services-") as tmp:
        bench_health(Path(tmp), args.rounds)
        bench_launch(Path(tmp))


if __name__ == "__main__":
    main()
