"""The ceiling of ``sparktui bench``: requests per second it drives against an engine that
answers at once, next to aiperf run by hand with the same settings (goal: at least 0.9x).

    python benchmarks/bench_bench.py [--concurrency 32] [--requests 2000] [--rounds 2]

Needs aiperf (docs/bench.md: ``pipx install aiperf==0.13.0`` or ``$SPARKTUI_AIPERF``).
The engine is the test engine (tests/hosts/testimage/sparktest/http_engine.py) on
loopback with TTFT and inter-token time 0; both sides drive the same engine with the
same argv (``plan/bench/aiperf.profile_argv``), so the ratio is what sparktui's driving
(the subprocess, the progress polling, reading the export) costs. Rounds are
interleaved; the figures are aiperf's own request throughput, median of the rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from bench_support import word_tokenizer  # noqa: E402

from sparktui.engine.bench.kept import find_tool  # noqa: E402
from sparktui.engine.bench.run import run_levels  # noqa: E402
from sparktui.engine.bench.target import BenchTarget  # noqa: E402
from sparktui.plan.bench.aiperf import EXPORT, BenchSettings, profile_argv  # noqa: E402

ENGINE = ROOT / "tests" / "hosts" / "testimage" / "sparktest" / "http_engine.py"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def by_hand(tool: str, settings: BenchSettings, url: str, model: str, work: Path) -> float:
    artifacts = work / f"hand-{time.monotonic_ns()}"
    argv = profile_argv(tool, settings, url=url, model=model,
                        concurrency=settings.concurrency[0], artifact_dir=str(artifacts))
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    export = json.loads((artifacts / EXPORT).read_text())
    return float(export["request_throughput"]["avg"])


def through_sparktui(tool: str, settings: BenchSettings, target: BenchTarget) -> float:
    levels, interrupted, _ = asyncio.run(run_levels(tool, settings, target, lambda p: None))
    assert not interrupted and levels[0].errors == 0, levels
    return float(levels[0].request_throughput or 0.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    tool = find_tool()
    with tempfile.TemporaryDirectory(prefix="bench-bench-") as tmp:
        work = Path(tmp)
        state = work / "state"
        state.mkdir()
        (state / "engine.json").write_text(json.dumps({"ttft": 0, "tpot": 0}))
        port, model = free_port(), "org/toy"
        engine = subprocess.Popen([sys.executable, str(ENGINE), "--host", "127.0.0.1",
                                   "--port", str(port), "--model", model,
                                   "--state-dir", str(state)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), 1).close()
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)
            settings = BenchSettings(concurrency=(a.concurrency,), requests=a.requests,
                                     input_tokens=32, output_tokens=8,
                                     tokenizer=str(word_tokenizer(work / "tokenizer")))
            target = BenchTarget(recipe="toy", cluster="local", nodes=["local"], head="local",
                                 host="127.0.0.1", port=port, model=model, engine="vllm",
                                 image="")
            hand, ours = [], []
            for _ in range(a.rounds):
                hand.append(by_hand(tool, settings, target.url, model, work))
                ours.append(through_sparktui(tool, settings, target))
        finally:
            engine.terminate()
            engine.wait(10)
    h, o = statistics.median(hand), statistics.median(ours)
    print(f"aiperf by hand:     {h:8.1f} requests/s  (rounds: "
          + ", ".join(f"{x:.1f}" for x in hand) + ")")
    print(f"sparktui bench:     {o:8.1f} requests/s  (rounds: "
          + ", ".join(f"{x:.1f}" for x in ours) + ")")
    print(f"ratio:              {o / h:8.2f}x  (goal: at least 0.9x; concurrency "
          f"{a.concurrency}, {a.requests} requests, 32 in / 8 out tokens)")


if __name__ == "__main__":
    main()
