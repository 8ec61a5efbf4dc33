"""The dashboard under a log flood: key-press to screen-update latency and memory.

    python benchmarks/bench_logs_pane.py [--rate 50000] [--seconds 10] [--nodes 2] [--no-keys]

Runs the real app headless (``App.run_test``) on ``examples/config.toml`` with a stand-in
engine whose ``log_batches`` floods ``--rate`` lines a second, split over the nodes, for
``--seconds``: the lines take the worker's path (``workers.follow_logs``, which posts what
came as one ``LogsArrived`` every 50 ms -> the logs pane's bounded buffers -> one
``Log.write_lines`` per 20 Hz flush). Meanwhile it presses keys every ~200 ms and times,
for each, from sending the key to the first frame that shows its effect (a wrapper on
``App._display``, which Textual calls with every rendered screen update):

- ``1``/``5``: focus the clusters pane / the logs pane (cheap: input latency under load);
- ``w``: wrap on/off (the pane re-renders every buffered line);
- ``v``: the level filter (re-renders too).

It prints median and p95 per key (goal: median < 50 ms, p95 < 100 ms), frames per second, the lines
the pane took per second, and RSS before the flood, once the buffers are full, at the
end and at peak (flat: the buffers are bounded).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from null_engine import NullEngine  # noqa: E402
from textual import events  # noqa: E402

from sparktui.config.loader import load_config  # noqa: E402
from sparktui.engine.status import ClusterHealth, LogBatch, NodeHealth  # noqa: E402
from sparktui.tui.app import SparkApp, create_app  # noqa: E402
from sparktui.tui.options import TuiOptions  # noqa: E402
from sparktui.tui.startup import collect_less_often  # noqa: E402

CHUNK = 500  # lines per LogBatch, as the engine's streams cut them


def sample_lines(count: int = 4096) -> list[str]:
    """vLLM-like lines, mostly INFO, a warning now and then, an error with its traceback."""
    out: list[str] = []
    i = 0
    while len(out) < count:
        i += 1
        stamp = f"06-15 15:{i // 60 % 60:02d}:{i % 60:02d}"
        if i % 97 == 0:
            out += [f"ERROR {stamp} [core.py:{i % 900}] EngineCore hit an exception",
                    "Traceback (most recent call last):",
                    f'  File "/usr/lib/python3/vllm/core.py", line {i % 900}, in step',
                    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"]
        elif i % 13 == 0:
            out.append(f"WARNING {stamp} [scheduler.py:{i % 300}] Sequence group {i} is "
                       f"preempted by PreemptionMode.RECOMPUTE mode")
        else:
            out.append(f"INFO {stamp} [metrics.py:{i % 500}] Avg prompt throughput: "
                       f"{i % 977}.4 tokens/s, Avg generation throughput: {i % 311}.9 "
                       f"tokens/s, Running: {i % 7} reqs, Waiting: {i % 3} reqs, "
                       f"GPU KV cache usage: {i % 100}.0%")
    return out[:count]


class FloodEngine(NullEngine):
    """Health answers at once; logs flood at ``rate`` lines/s for ``seconds``, then stop."""

    def __init__(self, nodes: list[str], rate: int, seconds: float) -> None:
        self.nodes = nodes
        self.rate = rate
        self.seconds = seconds
        self.sent = 0
        self.started: float | None = None
        self.pool = sample_lines()

    async def health(self, cluster: str) -> ClusterHealth:
        return ClusterHealth(cluster, [NodeHealth(n, True, latency_ms=1.0)
                                       for n in self.nodes], time.time())

    def log_batches(self, cluster: str, *, node=None, recipe=None, tail=200, follow=True):
        async def stream():
            await self.go.wait()
            self.started = start = time.perf_counter()
            pool, size, at, turn = self.pool, len(self.pool), 0, 0
            while (elapsed := time.perf_counter() - start) < self.seconds:
                due = int(self.rate * elapsed) - self.sent
                if due < CHUNK:
                    await asyncio.sleep(0.002)
                    continue
                while due >= CHUNK:
                    lines = [pool[(at + k) % size] for k in range(CHUNK)]
                    at = (at + CHUNK) % size
                    yield LogBatch(self.nodes[turn % len(self.nodes)], lines)
                    turn += 1
                    self.sent += CHUNK
                    due -= CHUNK
                await asyncio.sleep(0)  # the stream yields to the loop like a socket would
            await asyncio.Event().wait()

        return stream()


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Frames:
    """Wraps ``App._display``: counts frames and wakes a waiter whose condition holds."""

    def __init__(self, app: SparkApp) -> None:
        self.count = 0
        self.cond: Callable[[], bool] | None = None
        self.hit: asyncio.Future[float] | None = None
        original = app._display

        def display(screen, renderable) -> None:
            original(screen, renderable)
            if renderable is None:
                return
            self.count += 1
            if self.cond is not None and self.hit is not None and not self.hit.done() \
                    and self.cond():
                self.hit.set_result(time.perf_counter())

        app._display = display  # type: ignore[method-assign]

    async def press(self, app: SparkApp, key: str, cond: Callable[[], bool],
                    timeout: float = 5.0) -> float:
        """Milliseconds from sending ``key`` to the first frame where ``cond()`` holds."""
        self.cond = cond
        self.hit = asyncio.get_running_loop().create_future()
        event = events.Key(key, key if len(key) == 1 else None)
        event.set_sender(app)
        start = time.perf_counter()
        app._driver.send_message(event)  # what a terminal's key press becomes
        try:
            end = await asyncio.wait_for(self.hit, timeout)
        except TimeoutError:
            end = time.perf_counter()
        self.cond = None
        return (end - start) * 1000


class FullCollections:
    """Times every full (gen2) collection while it is installed (``gc.callbacks``)."""

    def __init__(self) -> None:
        self.ms: list[float] = []
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.ms.append((time.perf_counter() - self._start) * 1000)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def run(rate: int, seconds: float, nodes: int, size: tuple[int, int],
              keys: bool = True, freeze: bool = True) -> None:
    loaded = load_config(ROOT / "examples" / "config.toml")
    cluster = next(c for c in loaded.config.clusters if len(c.nodes) >= nodes)
    names = [n.name for n in cluster.ranked][:nodes]
    engine = FloodEngine(names, rate, seconds)
    engine.go = asyncio.Event()
    options = TuiOptions(cursor_blink=False, animations=False, refresh_seconds=2.0)
    if freeze:
        # As the real CLI does (cli/dashboard.py, tui/startup.finish_start): what start-up
        # loaded lives as long as the app, so it is frozen out of collections, and the
        # collector runs at the dashboard's thresholds.
        gc.freeze()
        collect_less_often()
    app = create_app(loaded, ROOT / "recipes", engine, False, options=options)
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.3)
        if app.cluster != cluster.name:
            app.focus_cluster(cluster.name)
        await pilot.press("5")
        await pilot.pause(0.3)
        dash = app.dashboard
        assert dash is not None
        pane = dash.logs
        frames = Frames(app)
        gc.collect()
        rss_start = rss_mb()
        full = FullCollections()
        gc.callbacks.append(full)
        engine.go.set()
        samples: dict[str, list[float]] = {"1/5 focus": [], "w wrap": [], "v level": []}
        rss_full: float | None = None
        rss_series: list[float] = []
        t0 = time.perf_counter()
        cpu0 = time.process_time()
        frames0 = frames.count
        step = 0
        while engine.started is None or time.perf_counter() - engine.started < seconds:
            await asyncio.sleep(0.2)
            if engine.started and len(rss_series) < time.perf_counter() - engine.started:
                rss_series.append(rss_mb())  # about once a second
            if rss_full is None and engine.started and time.perf_counter() - engine.started > 2:
                rss_full = rss_mb()
            step += 1
            kind = step % 4
            if not keys:
                continue
            if kind in (0, 2):
                target = "5" if app.focused is not pane.view else "1"
                want = pane.view if target == "5" else dash.clusters_pane.cluster_tree
                samples["1/5 focus"].append(
                    await frames.press(app, target, lambda w=want: app.focused is w))
                if target == "1":  # back to the logs for the pane's own keys
                    await frames.press(app, "5", lambda: app.focused is pane.view)
            elif kind == 1:
                wrap = not pane.wrap
                samples["w wrap"].append(
                    await frames.press(app, "w", lambda w=wrap: pane.wrap is w))
            else:
                level = pane.level
                samples["v level"].append(
                    await frames.press(app, "v", lambda lv=level: pane.level != lv))
        elapsed = time.perf_counter() - t0
        cpu = time.process_time() - cpu0
        gc.callbacks.remove(full)
        fps = (frames.count - frames0) / elapsed
        taken = pane._seq
        gc.collect()
        rss_end = rss_mb()
        buffered = sum(len(b) for b in pane.buffers.values())

    print(f"flood: {engine.sent:,} lines in {seconds:g} s to {nodes} nodes' streams "
          f"({engine.sent / seconds:,.0f} lines/s asked {rate:,}); the pane took "
          f"{taken:,} ({taken / elapsed:,.0f}/s); buffered at the end {buffered:,}")
    print(f"frames: {fps:.1f}/s while flooding (terminal {size[0]}x{size[1]}); "
          f"CPU {100 * cpu / elapsed:.0f}% of one core")
    print("key -> frame showing its effect, ms:")
    for name, values in samples.items():
        if values:
            print(f"  {name:<10} n={len(values):3d}  median {statistics.median(values):7.1f}"
                  f"  p95 {percentile(values, 0.95):7.1f}  max {max(values):7.1f}")
    every = [v for values in samples.values() for v in values]
    if every:
        print(f"  {'all':<10} n={len(every):3d}  median {statistics.median(every):7.1f}"
              f"  p95 {percentile(every, 0.95):7.1f}   goal: median < 50, p95 < 100")
    print(f"gc while flooding: {len(full.ms)} full collections, "
          f"{sum(full.ms):.0f} ms in all, longest {max(full.ms, default=0):.0f} ms; "
          f"{gc.get_freeze_count():,} objects frozen at start-up")
    print(f"RSS MB: start {rss_start:.1f}, buffers full (2 s) {rss_full or float('nan'):.1f}, "
          f"end {rss_end:.1f}, peak {peak_mb():.1f}")
    print("RSS MB each second: " + " ".join(f"{v:.0f}" for v in rss_series))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rate", type=int, default=50_000, help="lines per second")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--nodes", type=int, default=2)
    parser.add_argument("--size", default="160x50", help="terminal columns x rows")
    parser.add_argument("--no-keys", action="store_true",
                        help="press nothing: the memory of the flood alone")
    parser.add_argument("--no-freeze", action="store_true",
                        help="skip the start-up gc.freeze() the real CLI does")
    args = parser.parse_args()
    cols, rows = (int(v) for v in args.size.split("x"))
    asyncio.run(run(args.rate, args.seconds, args.nodes, (cols, rows), not args.no_keys,
                    not args.no_freeze))


if __name__ == "__main__":
    main()
