"""What translations cost: the language switch, babel's lazy import, a formatted figure.

    python benchmarks/bench_i18n.py [--runs 9]

- wall time (median of N, interleaved) of ``sparktui plan R`` in English and in Russian,
  and their ratio (goal: ~1.0x: the plan path loads a .mo and never imports babel);
- in a fresh interpreter: ``install(lang)`` (reads the .mo), the first ``format_number``
  (imports babel, loads the locale) and the cost of each later call.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "examples" / "config.toml"
FRESH = """
import time
t0 = time.perf_counter()
from sparktui.i18n import install
install({lang!r})
t1 = time.perf_counter()
from sparktui import fmt
fmt.format_number(1234.5)
t2 = time.perf_counter()
for i in range(2000):
    fmt.format_number(i * 1.5)
    fmt.format_duration(i * 97)
t3 = time.perf_counter()
print(t1 - t0, t2 - t1, (t3 - t2) / 4000)
"""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    env["PYTHONPATH"] = str(ROOT)
    return env


def _plan(lang: str) -> float:
    argv = [sys.executable, "-m", "sparktui", "--lang", lang, "--config", str(CONFIG),
            "--recipes", str(ROOT / "recipes"), "plan", "qwen3-235b-2node"]
    env = _env()
    started = time.perf_counter()
    subprocess.run(argv, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    times: dict[str, list[float]] = {"en": [], "ru": []}
    for _ in range(args.runs):
        for lang in times:
            times[lang].append(_plan(lang))
    en, ru = (statistics.median(times[k]) for k in ("en", "ru"))
    print(f"plan (no cache)   en {en * 1000:7.1f} ms   ru {ru * 1000:7.1f} ms   "
          f"ru/en {ru / en:.2f}x")
    for lang in ("ru", "de", "en"):
        out = subprocess.run([sys.executable, "-c", FRESH.format(lang=lang)], env=_env(),
                             check=True, capture_output=True, text=True).stdout.split()
        install, first, each = (float(x) for x in out)
        print(f"{lang}: install {install * 1000:5.1f} ms   first format (babel import + "
              f"locale) {first * 1000:5.1f} ms   then {each * 1e6:5.1f} us per call")


if __name__ == "__main__":
    main()
