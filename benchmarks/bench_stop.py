"""``stop`` of a 2-node group whose engine ignores SIGTERM, on the real Docker test bed.

    python benchmarks/bench_stop.py [--grace 6] [--runs 3]

An engine stuck in teardown (``STANDIN_ON_SIGTERM=ignore``, as a vLLM group in NCCL
teardown can be) takes docker's whole grace period before SIGKILL. Prints the wall time
of ``sparktui stop --yes`` against the configured ``stop_grace_seconds`` (goal: at most
grace + 5 s) and checks that nothing is left on either node. Needs root, sshd, dockerd.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from hosts.cluster import TestCluster  # noqa: E402

from sparktui.cli import main  # noqa: E402

RECIPE = """engine = "vllm"
docker_image = "vllm:test"
model = "org/toy"
port = 30091
required_nodes = 2
tensor_parallel_size = 2
entrypoint = ["vllm", "serve"]

[env]
STANDIN_ON_SIGTERM = "ignore"
STANDIN_READY_AFTER = "0.2"
"""


def run(grace: float, runs: int) -> None:
    with TestCluster(2) as hosts, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        config = hosts.write_config(root / "config.toml", prefill_known_hosts=True)
        config.write_text(config.read_text().replace(
            "stop_grace_seconds = 3", f"stop_grace_seconds = {grace:g}"))
        (root / "recipes" / "stuck").mkdir(parents=True)
        (root / "recipes" / "stuck" / "recipe.toml").write_text(RECIPE)
        cli = ["--config", str(config), "--recipes", str(root / "recipes")]
        times = []
        for _ in range(runs):
            assert main([*cli, "serve", "stuck"]) == 0, "serve failed"
            started = time.perf_counter()
            assert main([*cli, "stop", "--yes"]) == 0, "stop failed"
            times.append(time.perf_counter() - started)
            left = [n.name for n in hosts.nodes if n.docker("ps", "-aq").stdout.strip()]
            assert not left, f"containers left on {left}"
        wall = statistics.median(times)
        print(f"\nstop of a 2-node group ignoring SIGTERM, grace {grace:g} s, {runs} runs:")
        print(f"  wall time (median)  {wall:6.2f} s   = grace + {wall - grace:.2f} s "
              f"({wall / grace:.2f}x the grace; goal: grace + 5 s at most)")
        print(f"  runs                {', '.join(f'{t:.2f}' for t in times)} s")
        print("  left on the nodes   nothing")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--grace", type=float, default=6.0)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    run(a.grace, a.runs)
