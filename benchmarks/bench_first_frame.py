"""Time to first frame: `sparktui` on a 4-node config vs a minimal Textual app.

    python benchmarks/bench_first_frame.py [--runs 9] [--profile]

Each run spawns a fresh process on a pseudo-terminal of 120x40, exactly as an operator
starts it (the installed `sparktui --config ... --recipes ...` console script, else
`python -m sparktui`: the real CLI entry and the real terminal driver; the checkout is put
on PYTHONPATH), and times from the spawn until the terminal has received the
first frame showing the app's content: the cluster's name in the dashboard's clusters
pane, the label's text in the minimal app. Then the process is killed (shutdown is not
counted). Both are measured interleaved in the same run; the figures are medians.
Goal: at most 1.5x.

``--profile`` also prints where a dashboard start goes in one fresh interpreter: the
imports by cumulative time (``python -X importtime``), and the modules loaded by the
time of the first frame.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZE = (40, 120)  # rows, columns

MINIMAL = """
from textual.app import App
from textual.widgets import Label

class One(App):
    def compose(self):
        yield Label("hello-first-frame")

One().run()
"""
MINIMAL_MARK = b"hello-first-frame"

# Four nodes on loopback ports where nothing listens: the engine starts as it would,
# its first health check is refused at once, and no packet leaves this machine.
CONFIG = """
[[clusters]]
name = "four-spark-nodes"
nodes = [
  { name = "spark1", ssh_ip = "127.0.0.1", ssh_port = 9, rank = 0 },
  { name = "spark2", ssh_ip = "127.0.0.1", ssh_port = 9, rank = 1 },
  { name = "spark3", ssh_ip = "127.0.0.1", ssh_port = 9, rank = 2 },
  { name = "spark4", ssh_ip = "127.0.0.1", ssh_port = 9, rank = 3 },
]

[nccl."four-spark-nodes"]
socket_ifname = "lo"
"""
SPARKTUI_MARK = b"four-spark-nodes"
TIMEOUT = 30.0


def _env(home: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOME=home, TERM="xterm-256color",
               LANG="C.UTF-8", COLUMNS=str(SIZE[1]), LINES=str(SIZE[0]))
    for name in ("SPARKTUI_CONFIG", "SPARKTUI_RECIPES", "LANGUAGE", "LC_ALL", "LC_MESSAGES",
                 "TEXTUAL", "TEXTUAL_DEBUG"):
        env.pop(name, None)
    return env


def _cpu_seconds(pid: int) -> float:
    """CPU time the process has used so far, all its threads (``/proc/PID/task/*/schedstat``)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError, IndexError, ValueError):  # a thread that ended
            total += int((task / "schedstat").read_text().split()[0])
    return total / 1e9


def _once(argv: list[str], mark: bytes, home: str) -> tuple[float, float]:
    """Seconds from spawning ``argv`` on a fresh pty until ``mark`` reaches the terminal,
    and the CPU seconds the process used by then (less sensitive to a busy machine)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", SIZE[0], SIZE[1], 0, 0))
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=_env(home),
                            cwd=home, start_new_session=True)
    os.close(slave)
    seen = b""
    try:
        while True:
            left = TIMEOUT - (time.perf_counter() - started)
            if left <= 0:
                raise SystemExit(f"no first frame after {TIMEOUT:.0f} s from {argv}:\n"
                                 f"{seen[-2000:]!r}")
            ready, _, _ = select.select([master], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(master, 1 << 16)
            except OSError:  # the child closed the terminal: it died
                raise SystemExit(f"{argv} exited before its first frame:\n"
                                 f"{seen[-2000:]!r}") from None
            seen += chunk
            if mark in seen:
                return time.perf_counter() - started, _cpu_seconds(proc.pid)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        os.close(master)


def _profile(config: str, recipes: str, home: str) -> None:
    """Where one dashboard start goes: imports by cumulative time."""
    code = ("import sys; from sparktui.cli import main; "
            "from textual.app import App; "
            "App.run = lambda self, **kw: None; "  # up to the app's run, not the frame
            f"main(['--config', {config!r}, '--recipes', {recipes!r}])")
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", code], env=_env(home),
                          cwd=home, capture_output=True, text=True, timeout=60)
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line.split("|")
        if cumulative.strip().isdigit():
            rows.append((int(cumulative), name.rstrip()))
    print("\nimports before the app runs, by cumulative time (python -X importtime, us):")
    for cumulative, name in sorted(rows, reverse=True)[:25]:
        print(f"  {cumulative:8d} {name}")
    heavy = ("asyncssh", "httpx", "prometheus_client", "babel", "tomlkit", "pydantic")
    loaded = {name.strip() for _, name in rows}
    print("  heavy modules imported before the first frame:",
          ", ".join(h for h in heavy if h in loaded) or "none")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="sparktui-first-frame-"))
    (folder / "config.toml").write_text(CONFIG)
    home = str(folder)
    config, recipes = str(folder / "config.toml"), str(ROOT / "recipes")
    minimal = [sys.executable, "-c", MINIMAL]
    script = Path(sys.executable).with_name("sparktui")  # the installed console script
    entry = [str(script)] if script.is_file() else [sys.executable, "-m", "sparktui"]
    ours = [*entry, "--config", config, "--recipes", recipes]
    _once(minimal, MINIMAL_MARK, home)  # warm the page cache and the bytecode
    _once(ours, SPARKTUI_MARK, home)
    runs_minimal, runs_ours = [], []
    for _ in range(args.runs):  # interleaved so drift hits both alike
        runs_minimal.append(_once(minimal, MINIMAL_MARK, home))
        runs_ours.append(_once(ours, SPARKTUI_MARK, home))
    m, o = (statistics.median(t for t, _ in runs) for runs in (runs_minimal, runs_ours))
    mc, oc = (statistics.median(c for _, c in runs) for runs in (runs_minimal, runs_ours))
    print(f"minimal Textual app, first frame:     {m * 1000:7.1f} ms "
          f"(median of {args.runs}; min {min(t for t, _ in runs_minimal) * 1000:.1f}; "
          f"CPU {mc * 1000:.1f} ms)")
    print(f"sparktui, 4-node config, first frame: {o * 1000:7.1f} ms "
          f"(min {min(t for t, _ in runs_ours) * 1000:.1f}; CPU {oc * 1000:.1f} ms)")
    print(f"  ratio: {o / m:.2f}x   (goal <= 1.5x; CPU time to the first frame: {oc / mc:.2f}x; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    if args.profile:
        _profile(config, recipes, home)


if __name__ == "__main__":
    main()
