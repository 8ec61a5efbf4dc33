"""Time to first frame: `sparktui` on a 4-node config vs a minimal Textual app.

    python benchmarks/bench_first_frame.py [--runs 9]

Each run is a fresh interpreter that imports, builds the app, runs it headless
and exits as soon as the first frame has been composed and painted; the wall time
of the whole process is what an operator waits for. Goal: at most 1.5x.
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

class One(App):
    def compose(self):
        yield Label("hello")
    def on_mount(self):
        self.call_after_refresh(self.exit)

One().run(headless=True, size=(120, 40))
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

async def first_frame(pilot):
    await pilot.pause()
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
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOME=tempfile.gettempdir())
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, *extra], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    return time.perf_counter() - started


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
