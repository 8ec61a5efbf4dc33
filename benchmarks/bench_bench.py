"""The ceiling of ``sparktui bench``: requests per second it drives against an engine that
answers at once, next to aiperf run by hand with the same settings (goal: at least 0.9x).

    python benchmarks/bench_bench.py [--concurrency 32] [--requests 2000] [--rounds 2]
    python benchmarks/bench_bench.py --real [--concurrency 4] [--requests 64] [--rounds 3]

``--real`` drives the real vLLM instead (issue 34): vLLM 0.32's CPU build
(``$SPARKTUI_TEST_VLLM``, as the tests use it) serving the tests' tiny random Llama on
loopback, started once; its own tokenizer. There the engine, not the driving, is what
limits, as on a cluster.

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
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from bench_support import word_tokenizer  # noqa: E402

from sparktui.engine.bench.kept import find_tool  # noqa: E402
from sparktui.engine.bench.run import run_levels  # noqa: E402
from sparktui.engine.bench.target import BenchTarget  # noqa: E402
from sparktui.plan.bench.aiperf import EXPORT, BenchSettings, profile_argv  # noqa: E402

ENGINE = ROOT / "tests" / "hosts" / "testimage" / "sparktest" / "http_engine.py"
REAL_ARGS = ["--max-model-len", "256", "--enforce-eager", "--dtype", "float32"]
"""As tests/real_vllm_support.py serves it (float32: no AMX in this kernel)."""


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


def wait_ready(url: str, engine: subprocess.Popen, within: float) -> None:
    """Until the engine lists its models (the real vLLM binds its port before it is
    ready)."""
    deadline = time.monotonic() + within
    while True:
        try:
            with urllib.request.urlopen(f"{url}/v1/models", timeout=5) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        if engine.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the engine did not come up (exit {engine.returncode})")
        time.sleep(0.2)


def start_engine(real: bool, work: Path, port: int) -> tuple[subprocess.Popen, str, Path]:
    """(the engine's process, its model name, the tokenizer folder)."""
    if real:
        from hosts.testimage.real_vllm import VLLM_PYTHON, model_dir

        model = model_dir()
        argv = [str(VLLM_PYTHON), "-m", "vllm.entrypoints.openai.api_server", "--model",
                str(model), "--served-model-name", "org/tiny", "--host", "127.0.0.1",
                "--port", str(port), *REAL_ARGS,
                # each run sends the same prompts: cached prefixes would speed whichever
                # side runs later, and the rounds would measure the cache
                "--no-enable-prefix-caching"]
        env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1", "HF_HUB_OFFLINE": "1"}
        engine = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        return engine, "org/tiny", model
    state = work / "state"
    state.mkdir()
    (state / "engine.json").write_text(json.dumps({"ttft": 0, "tpot": 0}))
    engine = subprocess.Popen([sys.executable, str(ENGINE), "--host", "127.0.0.1",
                               "--port", str(port), "--model", "org/toy",
                               "--state-dir", str(state)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return engine, "org/toy", word_tokenizer(work / "tokenizer")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--real", action="store_true", help="drive the real vLLM (CPU build)")
    ap.add_argument("--concurrency", type=int)
    ap.add_argument("--requests", type=int)
    ap.add_argument("--rounds", type=int)
    a = ap.parse_args()
    concurrency = a.concurrency or (4 if a.real else 32)
    requests = a.requests or (64 if a.real else 2000)
    rounds = a.rounds or (3 if a.real else 2)
    tool = find_tool()
    with tempfile.TemporaryDirectory(prefix="bench-bench-") as tmp:
        work = Path(tmp)
        port = free_port()
        engine, model, tokenizer = start_engine(a.real, work, port)
        try:
            url = f"http://127.0.0.1:{port}"
            started = time.monotonic()
            wait_ready(url, engine, 600 if a.real else 30)
            if a.real:
                print(f"the real vLLM ready in {time.monotonic() - started:.1f} s")
            settings = BenchSettings(concurrency=(concurrency,), requests=requests,
                                     input_tokens=32, output_tokens=8,
                                     tokenizer=str(tokenizer))
            target = BenchTarget(recipe="toy", cluster="local", nodes=["local"], head="local",
                                 host="127.0.0.1", port=port, model=model, engine="vllm",
                                 image="")
            hand: list[float] = []
            ours: list[float] = []
            for i in range(rounds):  # interleaved, each side first in turn
                sides = [lambda: hand.append(by_hand(tool, settings, url, model, work)),
                         lambda: ours.append(through_sparktui(tool, settings, target))]
                for side in (sides if i % 2 == 0 else sides[::-1]):
                    side()
        finally:
            engine.terminate()
            engine.wait(30)
    h, o = statistics.median(hand), statistics.median(ours)
    print(f"aiperf by hand:     {h:8.1f} requests/s  (rounds: "
          + ", ".join(f"{x:.1f}" for x in hand) + ")")
    print(f"sparktui bench:     {o:8.1f} requests/s  (rounds: "
          + ", ".join(f"{x:.1f}" for x in ours) + ")")
    print(f"ratio:              {o / h:8.2f}x  (goal: at least 0.9x; "
          f"{'the real vLLM' if a.real else 'an engine that answers at once'}, concurrency "
          f"{concurrency}, {requests} requests, 32 in / 8 out tokens)")


if __name__ == "__main__":
    main()
