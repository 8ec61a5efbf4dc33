"""Time to first frame: `sparktui` on a 4-node config vs a minimal Textual app.

    python benchmarks/bench_first_frame.py [--runs 9]

Each run is a fresh interpreter that imports, builds the app and runs it headless;
the figure is the time from spawning it to the moment Textual hands the running
app to its pilot (first screen mounted and painted). Shutdown is not counted.
Goal: at most 1.5x.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

MINIMAL = """
from textual.app import App
from textual.widgets import Label

import time

class One(App):
    def compose(self):
        yield Label("hello")

async def first_frame(pilot):
    print(time.time(), flush=True)  # the app is up and its first frame is painted
    pilot.app.exit()

One().run(headless=True, size=(120, 40), auto_pilot=first_frame)
"""

SPARKTUI = """
import sys
from pathlib import Path
from sparktui.i18n import install
install("en")
from sparktui.config import load_config
from sparktui.engine.cluster import ClusterEngine
from sparktui.tui.app import create_app

loaded = load_config(Path(sys.argv[1]))
app = create_app(loaded, Path(sys.argv[2]), ClusterEngine(loaded.config), False)

import time

async def first_frame(pilot):
    print(time.time(), flush=True)  # the app is up and its first frame is painted
    app.exit()

app.run(headless=True, size=(120, 40), auto_pilot=first_frame)
"""

# Four nodes on loopback ports where nothing listens: the engine starts as it would,
# its first health check is refused at once, and no packet leaves this machine.
CONFIG = """
[[clusters]]
name = "4nodes"
nodes = [
  { name = "spark1", ssh_ip = "127.0.0.1", ssh_port = 9, rank = 0 },
  { name = "spark2", ssh_ip = "127.0.0.1", ssh_port = 9, rank = 1 },
  { name = "spark3", ssh_ip = "127.0.0.1", ssh_port = 9, rank = 2 },
  { name = "spark4", ssh_ip = "127.0.0.1", ssh_port = 9, rank = 3 },
]

[nccl."4nodes"]
socket_ifname = "lo"
"""


def _once(code: str, *extra: str) -> float:
    """Seconds from spawning the process to its first frame (shutdown not counted)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOME=tempfile.gettempdir())
    started = time.time()
    done = subprocess.run([sys.executable, "-c", code, *extra], env=env, check=True,
                          capture_output=True, text=True, timeout=60)
    return float(done.stdout.split()[0]) - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="sparktui-first-frame-"))
    (folder / "config.toml").write_text(CONFIG)
    config, recipes = str(folder / "config.toml"), str(ROOT / "recipes")
    _once(MINIMAL)
    _once(SPARKTUI, config, recipes)
    minimal, ours = [], []
    for _ in range(args.runs):  # interleaved so drift hits both alike
        minimal.append(_once(MINIMAL))
        ours.append(_once(SPARKTUI, config, recipes))
    m, o = statistics.median(minimal), statistics.median(ours)
    print(f"minimal Textual app, first frame: {m * 1000:7.1f} ms (median of {args.runs})")
    print(f"sparktui, 4-node config, first frame: {o * 1000:7.1f} ms")
    print(f"  ratio: {o / m:.2f}x   (goal <= 1.5x)")


if __name__ == "__main__":
    main()
