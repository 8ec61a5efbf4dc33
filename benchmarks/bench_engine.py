"""Engine figures on the real sshd test hosts (tests/hosts); prints ratios.

    python benchmarks/bench_engine.py [--lines 1000000]

- health across 8 nodes vs 1 node (goal: at most 1.5x)
- a command on a warm connection vs a fresh ``ssh node true`` (goal: at least 5x faster)
- log lines per second through our stream vs ``ssh node docker logs -f > /dev/null``
  on the same flooding container (goal: at least 0.8x), with peak RSS over the run
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from hosts.cluster import TestCluster  # noqa: E402

from sparktui.config.loader import load_config  # noqa: E402
from sparktui.engine.cluster import ClusterEngine  # noqa: E402
from sparktui.engine.remote.hostkeys import init_host_keys  # noqa: E402
from sparktui.engine.status import Workload  # noqa: E402
from sparktui.engine.workloads.logs import node_logs  # noqa: E402


def _engine(hosts: TestCluster, root: Path) -> ClusterEngine:
    path = hosts.write_config(root / "bench-config.toml")
    loaded = load_config(path)
    asyncio.run(init_host_keys(loaded.config, loaded.config.clusters[0].nodes))
    return ClusterEngine(loaded.config)


async def _health_times(engine: ClusterEngine, rounds: int) -> tuple[float, float, float]:
    """Median wall time, median sum of the nodes' own latencies, our CPU per check."""
    await engine.health("test")  # warm the connections
    times, sums = [], []
    cpu_started = time.process_time()
    for _ in range(rounds):
        started = time.perf_counter()
        health = await engine.health("test")
        times.append(time.perf_counter() - started)
        sums.append(sum(n.latency_ms or 0 for n in health.nodes) / 1000)
        assert health.all_reachable
    cpu = (time.process_time() - cpu_started) / rounds
    return statistics.median(times), statistics.median(sums), cpu


def bench_health(rounds: int, instant: bool = False) -> None:
    """With ``instant``, nodes answer discovery with a bare echo: what is left is sshd's
    session setup and our own per-node cost, the fan-out floor on this machine."""
    import sparktui.engine.health as health_module

    saved = health_module.DISCOVER
    if instant:
        health_module.DISCOVER = "echo '[]'; echo @@sparktui-tmux@@"
    medians = {}
    for n in (1, 8):
        with TestCluster(n) as hosts:
            hosts.start()
            engine = _engine(hosts, hosts.root)

            async def go(engine=engine):
                try:
                    return await _health_times(engine, rounds)
                finally:
                    await engine.close()

            medians[n] = asyncio.run(go())
    health_module.DISCOVER = saved
    if instant:
        print("-- fan-out floor: nodes answer discovery with a bare echo --")
    (wall1, _sum1, cpu1), (wall8, sum8, cpu8) = medians[1], medians[8]
    print(f"health 1 node : {wall1 * 1000:8.1f} ms (median of {rounds}), our CPU "
          f"{cpu1 * 1000:.1f} ms")
    print(f"health 8 nodes: {wall8 * 1000:8.1f} ms, our CPU {cpu8 * 1000:.1f} ms")
    print(f"  ratio 8/1   : {wall8 / wall1:8.2f}x   (goal <= 1.5x)")
    print(f"  8 nodes' own latencies add up to {sum8 * 1000:.1f} ms: the check took "
          f"{wall8 / sum8:.2f}x of that (1.0 = fully serial, 1/8 = fully parallel)")
    print(f"  ({os.cpu_count()} cores simulate all 8 nodes, so their docker/sshd work "
          "queues for CPU here; real nodes do it on their own CPUs)")


def bench_warm_command(rounds: int) -> None:
    with TestCluster(1) as hosts:
        hosts.start()
        engine = _engine(hosts, hosts.root)
        node = engine.cluster("test").nodes[0]

        async def warm():
            t = engine.transport(node)
            await t.run("true")
            times = []
            for _ in range(rounds):
                started = time.perf_counter()
                await t.run("true")
                times.append(time.perf_counter() - started)
            await engine.close()
            return statistics.median(times)

        warm_s = asyncio.run(warm())
        fresh = []
        for _ in range(rounds):
            started = time.perf_counter()
            subprocess.run(hosts.ssh_argv(hosts.nodes[0], "true"), check=True,
                           stdin=subprocess.DEVNULL)
            fresh.append(time.perf_counter() - started)
        fresh_s = statistics.median(fresh)
    print(f"warm command  : {warm_s * 1000:8.2f} ms (median of {rounds})")
    print(f"fresh ssh true: {fresh_s * 1000:8.2f} ms")
    print(f"  speed-up    : {fresh_s / warm_s:8.1f}x   (goal >= 5x)")


def bench_logs(lines: int) -> None:
    with TestCluster(1) as hosts:
        hosts.start()
        engine = _engine(hosts, hosts.root)
        node = engine.cluster("test").nodes[0]
        flood = ["docker", "run", "-d", "--name", "flood", "-e", f"STANDIN_LOG_FLOOD={lines}",
                 "-e", "STANDIN_LOG_INTERVAL=3600", "vllm:test", "vllm", "serve", "m"]
        subprocess.run(hosts.ssh_argv(hosts.nodes[0], " ".join(flood)), check=True,
                       capture_output=True)
        # Wait until the container has printed the whole flood, so both readers see the
        # same bytes and neither is limited by the writer.
        while True:
            out = subprocess.run(hosts.ssh_argv(hosts.nodes[0], "docker logs flood | wc -l"),
                                 capture_output=True, text=True, check=True)
            if int(out.stdout.strip() or 0) >= lines:
                break
            time.sleep(0.5)
        started = time.perf_counter()
        subprocess.run(hosts.ssh_argv(hosts.nodes[0], "docker logs --tail all flood"),
                       stdout=subprocess.DEVNULL, check=True)
        ssh_s = time.perf_counter() - started
        workload = Workload("flood", "r", "test", node.name, 0, "head", "docker", "running")

        async def ours():
            transport = engine.transport(node)
            count = 0
            rss = []
            started = time.perf_counter()
            mark = 100_000
            async for batch in node_logs(transport, workload, tail=10 ** 9, follow=False):
                count += len(batch.lines)
                if count >= mark:
                    mark += 100_000
                    rss.append(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
            elapsed = time.perf_counter() - started
            await engine.close()
            return count, elapsed, rss

        count, ours_s, rss = asyncio.run(ours())
    print(f"log lines     : {count}")
    print(f"ssh docker logs > /dev/null: {lines / ssh_s:12,.0f} lines/s")
    print(f"sparktui stream            : {count / ours_s:12,.0f} lines/s")
    print(f"  ratio ours/ssh: {ssh_s / ours_s:6.2f}x   (goal >= 0.8x)")
    if rss:
        print(f"  peak RSS at 10% / 100% of the run: {rss[max(0, len(rss) // 10 - 1)] / 1024:.0f}"
              f" MiB / {rss[-1] / 1024:.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--lines", type=int, default=1_000_000)
    args = parser.parse_args()
    bench_health(args.rounds)
    bench_health(args.rounds, instant=True)
    bench_warm_command(args.rounds)
    bench_logs(args.lines)


if __name__ == "__main__":
    main()
