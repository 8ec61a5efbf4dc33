"""How long validating a config takes in-process: a generated 64-node cluster.

    python benchmarks/bench_validate.py [--nodes 64] [--seconds 2]

Times ``load_config`` (TOML read + the models + the cross-field checks) and the model
step alone (``Config.model_validate`` on the parsed TOML), both after a first call,
so a model's one-off build is not counted, and that first call separately: the cost
a cold command pays once. Prints medians in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_plan import big_cluster_files  # noqa: E402

from sparktui.config.toml_source import load_toml  # noqa: E402


def _repeat(call: object, seconds: float) -> float:
    samples: list[float] = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline or len(samples) < 5:
        start = time.perf_counter()
        call()  # type: ignore[operator]
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        config_path, _recipe = big_cluster_files(Path(tmp), args.nodes)
        data = load_toml(config_path).data
        start = time.perf_counter()
        from sparktui.config.loader import load_config
        from sparktui.config.models import Config
        Config.model_validate(data)
        first = time.perf_counter() - start
        model = _repeat(lambda: Config.model_validate(data), args.seconds)
        whole = _repeat(lambda: load_config(config_path), args.seconds)
    print(f"{args.nodes}-node config, in-process (median):")
    print(f"  first validation (builds the validators)   {first * 1000:8.2f} ms")
    print(f"  Config.model_validate (models only)          {model * 1000:8.3f} ms")
    print(f"  load_config (read + models + checks)         {whole * 1000:8.3f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
