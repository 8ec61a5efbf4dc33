"""Telemetry cost on the real sshd test hosts (tests/hosts); prints ratios.

    python benchmarks/bench_telemetry.py [--nodes 8] [--interval 2] [--seconds 30]

Samples an 8-node cluster whose head serves the fake engine, at the configured
interval, for ``--seconds``, and prints:

- our process CPU time over the run as a share of one core (goal: below 2%);
- SSH channels opened per node per sample, counted at the transport (goal: 1 for the
  node's command; the head adds one direct-tcpip channel for its /metrics);
- the median sample's wall time as a share of the interval;
- then the dashboard's key -> frame latency on these hosts with telemetry every 2 s
  against telemetry (nearly) off, and their ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from hosts.cluster import TestCluster  # noqa: E402

from sparktui.config.loader import load_config  # noqa: E402
from sparktui.engine.cluster import ClusterEngine  # noqa: E402
from sparktui.engine.remote import transport as transport_module  # noqa: E402
from sparktui.engine.remote.hostkeys import init_host_keys  # noqa: E402
from sparktui.plan.build import build_plan  # noqa: E402

RECIPE = """engine = "vllm"
docker_image = "vllm:test"
model = "org/toy"
port = 30011
required_nodes = 1
entrypoint = ["vllm", "serve"]
"""


class ChannelCount:
    """Counts every channel our transports open (commands, streams, direct-tcpip)."""

    def __init__(self) -> None:
        self.commands = 0
        self.tcp = 0
        cls = transport_module.SshTransport
        run, open_tcp = cls.run, cls.open_tcp
        counter = self

        async def counted_run(self, *args, **kw):
            counter.commands += 1
            return await run(self, *args, **kw)

        async def counted_tcp(self, *args, **kw):
            counter.tcp += 1
            return await open_tcp(self, *args, **kw)

        cls.run, cls.open_tcp = counted_run, counted_tcp  # type: ignore[method-assign]


async def _serve(engine: ClusterEngine, root: Path, loaded) -> None:
    from sparktui.config.loader import load_recipe

    path = root / "recipes" / "toy" / "recipe.toml"
    path.parent.mkdir(parents=True)
    path.write_text(RECIPE)
    plan = build_plan(loaded, load_recipe(path), "test")
    result = await engine.serve(plan, lambda event: None)
    assert result.ok, result


async def _key_latency(loaded, recipes: Path, seconds: float) -> list[float]:
    """Key press -> first frame showing its effect, on the dashboard over these hosts."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_logs_pane import Frames

    from sparktui.tui.app import create_app
    from sparktui.tui.options import TuiOptions

    options = TuiOptions(cursor_blink=False, animations=False, refresh_seconds=5.0)
    app = create_app(loaded, recipes, ClusterEngine(loaded.config), False, options=options)
    found: list[float] = []
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause(1.0)
        dash = app.dashboard
        assert dash is not None
        frames = Frames(app)
        started = time.monotonic()
        while time.monotonic() - started < seconds:
            await asyncio.sleep(0.2)
            target = "3" if app.focused is not dash.nodes.table else "1"
            want = dash.nodes.table if target == "3" else dash.clusters_pane.cluster_tree
            found.append(await frames.press(app, target, lambda w=want: app.focused is w))
        sampled = dash.telemetry.get("test")
    return found if sampled is not None else []


def bench_keys(hosts: TestCluster, path: Path, seconds: float) -> None:
    """The dashboard's key latency with telemetry every 2 s vs (nearly) off."""
    results = {}
    text = path.read_text().split("\n", 1)[1]
    for label, interval in (("off", 3600.0), ("on", 2.0)):
        path.write_text(f"telemetry_interval_seconds = {interval}\n" + text)
        loaded = load_config(path)
        results[label] = asyncio.run(_key_latency(loaded, hosts.root / "recipes", seconds))
    print("dashboard key -> frame showing its effect (1/3 focus), ms:")
    for label, values in results.items():
        if values:
            print(f"  telemetry {label:<3} n={len(values):3d}  median "
                  f"{statistics.median(values):6.1f}  max {max(values):6.1f}")
    if all(results.values()):
        ratio = statistics.median(results["on"]) / statistics.median(results["off"])
        print(f"  median with telemetry / without: {ratio:.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--nodes", type=int, default=8)
    ap.add_argument("--interval", type=float, default=2.0)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--keys", type=float, default=20.0, metavar="SECONDS",
                    help="then time dashboard key presses for this long with telemetry "
                         "on and off (0: skip)")
    args = ap.parse_args()

    with TestCluster(args.nodes) as hosts:
        hosts.start()
        path = hosts.write_config(hosts.root / "bench-config.toml")
        path.write_text(f"telemetry_interval_seconds = {args.interval}\n" + path.read_text())
        loaded = load_config(path)
        asyncio.run(init_host_keys(loaded.config, loaded.config.clusters[0].nodes))
        hosts.nodes[0].set_engine(running=2, waiting=1, kv=0.4, prompt_tps=900, gen_tps=300)

        async def go():
            engine = ClusterEngine(loaded.config)
            try:
                await _serve(engine, hosts.root, loaded)
                await engine.health("test")
                await engine.telemetry("test")  # warm: connections open, first deltas
                count = ChannelCount()
                walls = []
                samples = 0
                cpu0, wall0 = time.process_time(), time.monotonic()
                while time.monotonic() - wall0 < args.seconds:
                    started = time.monotonic()
                    frame = await engine.telemetry("test")
                    walls.append(time.monotonic() - started)
                    samples += 1
                    await asyncio.sleep(max(0.0, args.interval - walls[-1]))
                cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
                assert frame.engine is not None and frame.engine.gen_tps, frame.engine
                assert all(n.reachable for n in frame.nodes)
                return cpu, wall, samples, count, statistics.median(walls)
            finally:
                await engine.close()

        cpu, wall, samples, count, median = asyncio.run(go())
        _report(args, cpu, wall, samples, count, median)
        if args.keys > 0:
            bench_keys(hosts, path, args.keys)


def _report(args, cpu: float, wall: float, samples: int, count: ChannelCount,
            median: float) -> None:
    n = args.nodes
    share = cpu / wall
    print(f"telemetry: {n} nodes every {args.interval:g} s for {wall:.1f} s, {samples} samples")
    print(f"  our CPU: {cpu * 1000:.0f} ms over {wall:.1f} s = {share:.2%} of one core "
          f"(goal < 2%: {'ok' if share < 0.02 else 'MISSED'}); "
          f"{cpu / samples * 1000:.1f} ms per sample")
    print(f"  command channels per node per sample: {count.commands / samples / n:.3f} "
          f"(goal 1)")
    print(f"  direct-tcpip channels per sample: {count.tcp / samples:.3f} "
          "(the head's /metrics)")
    print(f"  all channels per node per sample: {(count.commands + count.tcp) / samples / n:.3f}")
    print(f"  median sample wall time: {median * 1000:.0f} ms = "
          f"{median / args.interval:.2f}x the interval")



if __name__ == "__main__":
    main()
