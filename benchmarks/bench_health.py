"""A health check with docker read through its API vs through its CLI, on the real sshd
and dockerd test hosts (tests/hosts); prints ratios.

    python benchmarks/bench_health.py [--rounds 41] [--nodes 2]

A toy recipe serves on every node (one container each), so the listing has something to
inspect. Two warm engines check the same nodes, interleaved round by round: one reads
docker through its Engine API (stream-local forwarding, engine/drivers/docker_api.py),
the other is given no socket for any node, so it asks docker's CLI as a node whose
endpoint is not a Unix socket would. Printed: the median wall time of a check, and the
CPU the whole machine spent per check (/proc/stat: sparktui, sshd, the docker CLI and
dockerd alike, as all the test nodes share this machine).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from hosts.cluster import TestCluster  # noqa: E402

from sparktui.config.loader import load_config, load_recipe  # noqa: E402
from sparktui.engine.cluster import ClusterEngine  # noqa: E402
from sparktui.engine.drivers import docker_api  # noqa: E402
from sparktui.engine.remote.hostkeys import init_host_keys  # noqa: E402
from sparktui.plan.build import build_plan  # noqa: E402

RECIPE = """engine = "vllm"
docker_image = "vllm:test"
model = "org/toy"
port = 30011
required_nodes = {n}
tensor_parallel_size = {n}
entrypoint = ["vllm", "serve"]
"""


def machine_cpu() -> float:
    """Seconds of CPU the whole machine has spent (user, nice, system, irq, softirq)."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq = (int(f) for f in fields[:7])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


async def rounds(api: ClusterEngine, cli: ClusterEngine, count: int) -> dict[str, list]:
    for engine in (api, cli):  # warm: connections open, the socket asked for (or not)
        assert (await engine.health("test")).serving
    found: dict[str, list] = {"api": [], "cli": [], "api_cpu": [], "cli_cpu": []}
    for _ in range(count):
        for name, engine in (("api", api), ("cli", cli)):
            cpu, started = machine_cpu(), time.perf_counter()
            health = await engine.health("test")
            found[name].append(time.perf_counter() - started)
            found[f"{name}_cpu"].append(machine_cpu() - cpu)
            assert health.serving and health.all_reachable, health
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=41)
    parser.add_argument("--nodes", type=int, default=2)
    args = parser.parse_args()
    with TestCluster(args.nodes) as hosts, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        loaded = load_config(hosts.write_config(root / "config.toml"))
        asyncio.run(init_host_keys(loaded.config, loaded.config.clusters[0].nodes))
        (root / "toy").mkdir()
        (root / "toy" / "recipe.toml").write_text(RECIPE.format(n=args.nodes))
        plan = build_plan(loaded, load_recipe(root / "toy" / "recipe.toml"), "test")

        async def run() -> dict[str, list]:
            api, cli = ClusterEngine(loaded.config), ClusterEngine(loaded.config)
            try:
                served = await api.serve(plan, lambda _progress: None)
                assert served.ok, served
                for node in loaded.config.clusters[0].nodes:
                    docker_api._sockets[cli.transport(node)] = None  # the CLI's path
                return await rounds(api, cli, args.rounds)
            finally:
                await api.stop("test", lambda _progress: None, recipe="toy")
                await api.close()
                await cli.close()

        found = asyncio.run(run())
    api, cli = statistics.median(found["api"]), statistics.median(found["cli"])
    api_cpu, cli_cpu = statistics.median(found["api_cpu"]), statistics.median(found["cli_cpu"])
    print(f"health of {args.nodes} serving nodes, median of {args.rounds}, interleaved:")
    print(f"  docker through its API: {api * 1000:7.1f} ms   machine CPU {api_cpu * 1000:6.1f} ms")
    print(f"  docker through its CLI: {cli * 1000:7.1f} ms   machine CPU {cli_cpu * 1000:6.1f} ms")
    print(f"  API / CLI: wall {api / cli:.2f}x, CPU {api_cpu / cli_cpu:.2f}x")


if __name__ == "__main__":
    main()
