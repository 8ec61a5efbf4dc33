"""``sparktui fit`` of a 4-node recipe vs one ``health`` of the same cluster, on real
sshd test hosts (with a dockerd each).

    python benchmarks/bench_fit.py [--runs 9]

Each node's HF cache holds Qwen3-30B-A3B's real config.json and an index, as
``huggingface-cli download`` leaves them; the recipe spreads the model with TP 4. Prints
the median wall time of both commands run through the CLI (each opens its own SSH
connections: what an operator pays), interleaved, and the same on one warm engine
(connections open), with the ratio (goal: fit at most 1.5x health). Needs sshd, dockerd.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from hosts.cluster import TestCluster  # noqa: E402

from sparktui.cli import main  # noqa: E402
from sparktui.config.loader import load_config, load_recipe  # noqa: E402
from sparktui.engine.cluster import ClusterEngine  # noqa: E402
from sparktui.plan.build import build_plan  # noqa: E402

REPO = "Qwen/Qwen3-30B-A3B"
COMMIT = "ad44e777bcd18fa416d9da3bd8f70d33ebb85d39"
RECIPE = f"""engine = "vllm"
docker_image = "vllm:test"
model = "{REPO}"
port = 30093
required_nodes = 4
tensor_parallel_size = 4
entrypoint = ["vllm", "serve"]
args = ["--max-model-len", "32768", "--max-num-seqs", "2"]
"""


def hf_cache(root: Path) -> Path:
    cache = root / "hf"
    repo = cache / "hub" / f"models--{REPO.replace('/', '--')}"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(COMMIT)
    snap = repo / "snapshots" / COMMIT
    snap.mkdir(parents=True)
    src = ROOT / "tests" / "data" / "model-configs" / "qwen3-30b-a3b.json"
    (snap / "config.json").write_text(src.read_text())
    (snap / "model.safetensors.index.json").write_text(json.dumps(
        {"metadata": {"total_size": 61_064_245_248}, "weight_map": {}}, indent=2))
    return cache


def quiet(argv: list[str]) -> tuple[int, float]:
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(argv)
    return code, time.perf_counter() - started


def run(runs: int) -> None:
    with TestCluster(4) as hosts, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cache = hf_cache(root)
        config = hosts.write_config(root / "config.toml", prefill_known_hosts=True,
                                    extra_toml=f'[mount_aliases]\nhf_cache = "{cache}"\n')
        (root / "recipes" / "qwen").mkdir(parents=True)
        (root / "recipes" / "qwen" / "recipe.toml").write_text(RECIPE)
        cli = ["--config", str(config), "--recipes", str(root / "recipes")]
        code, _ = quiet([*cli, "fit", "qwen"])
        assert code in (0, 4), f"fit exited {code}"  # a verdict either way (fits or not)
        fit_times, health_times = [], []
        for _ in range(runs):
            code, seconds = quiet([*cli, "fit", "qwen"])
            assert code in (0, 4), f"fit exited {code}"
            fit_times.append(seconds)
            code, seconds = quiet([*cli, "health"])
            assert code == 0, f"health exited {code}"
            health_times.append(seconds)

        loaded = load_config(config)
        plan = build_plan(loaded, load_recipe(root / "recipes" / "qwen" / "recipe.toml"), None)

        async def warm() -> tuple[list[float], list[float], str]:
            engine = ClusterEngine(loaded.config)
            try:
                await engine.health("test")
                report = await engine.fit(plan)
                fits, checks = [], []
                for _ in range(runs):
                    started = time.perf_counter()
                    await engine.fit(plan)
                    fits.append(time.perf_counter() - started)
                    started = time.perf_counter()
                    await engine.health("test")
                    checks.append(time.perf_counter() - started)
                return fits, checks, report.verdict
            finally:
                await engine.close()

        warm_fit, warm_health, verdict = asyncio.run(warm())
        cold_f, cold_h = statistics.median(fit_times), statistics.median(health_times)
        warm_f, warm_h = statistics.median(warm_fit), statistics.median(warm_health)
        print(f"\nfit of {REPO} (TP 4) on 4 nodes vs health, {runs} runs each, interleaved "
              f"(verdict: {verdict}):")
        print(f"  CLI, fresh connections  fit {cold_f * 1000:7.1f} ms   health "
              f"{cold_h * 1000:7.1f} ms   = {cold_f / cold_h:.2f}x (goal: at most 1.5x)")
        print(f"  one warm engine         fit {warm_f * 1000:7.1f} ms   health "
              f"{warm_h * 1000:7.1f} ms   = {warm_f / warm_h:.2f}x")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=9)
    run(ap.parse_args().runs)
