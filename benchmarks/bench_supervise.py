"""Supervision on the real Docker test bed: how fast a 2-node group comes back, and what
watching it costs.

    python benchmarks/bench_supervise.py [--interval 2] [--runs 3] [--watch-minutes 3]

1. Serve time alone: ``sparktui serve`` of the group until its API answers (median).
2. Recovery: a supervisor watches the group (``--interval``, two failed checks make a
   failure); a worker's container is killed; timed until every container of the group
   runs again (new ones) and until the head answers ``/v1/models`` again. Goal: at most
   serve time + 2 intervals.
3. Cost: the supervisor's own CPU (user + system, from /proc) while it watches the
   healthy group at a 5 s interval for ``--watch-minutes``, scaled to an hour.

Needs root, sshd, dockerd (what the engine tests need).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from hosts.cluster import TestCluster  # noqa: E402
from polling import eventually  # noqa: E402

from sparktui.cli import main  # noqa: E402

RECIPE = """engine = "vllm"
docker_image = "vllm:test"
model = "org/toy"
port = 30093
required_nodes = 2
tensor_parallel_size = 2
entrypoint = ["vllm", "serve"]

[env]
STANDIN_READY_AFTER = "1"
"""
TICK = os.sysconf("SC_CLK_TCK")
LOOK = 0.1  # seconds between looks: the resolution of the times measured by a wait


@contextlib.contextmanager
def _quiet():
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        yield


def _engines(hosts) -> dict[str, tuple[str, str]]:
    found = {}
    for node in hosts.nodes:
        out = node.docker("ps", "-a", "--filter", "name=sparktui-toy",
                          "--format", "{{.ID}} {{.State}}").stdout.split()
        if len(out) == 2:
            found[node.name] = (out[0], out[1])
    return found


def _all_new(hosts, before: dict[str, tuple[str, str]]) -> bool:
    now = _engines(hosts)
    return len(now) == 2 and all(now[n][0] != before[n][0] and now[n][1] == "running"
                                 for n in now)


def _answers(hosts) -> bool:
    head = hosts.nodes[0]
    try:
        with urllib.request.urlopen(f"http://{head.addr}:30093/v1/models", timeout=1) as r:
            return r.status == 200
    except OSError:
        return False


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


def _supervisor(cli: list[str], interval: float, log: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LANGUAGE": "en"}
    return subprocess.Popen([sys.executable, "-m", "sparktui", *cli, "supervise", "toy",
                             "--interval", f"{interval:g}"], env=env,
                            stdout=log.open("w"), stderr=subprocess.STDOUT)


def _end(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGINT)
    proc.wait(60)


def run(interval: float, runs: int, watch_minutes: float) -> None:
    with TestCluster(2) as hosts, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        config = hosts.write_config(root / "config.toml", prefill_known_hosts=True)
        # No backoff: every restart is timed as the first of its window (which never waits).
        config.write_text("health_timeout_seconds = 2\nsupervise_backoff_seconds = 0\n"
                          f"supervise_max_restarts = {runs + 1}\n" + config.read_text())
        (root / "recipes" / "toy").mkdir(parents=True)
        (root / "recipes" / "toy" / "recipe.toml").write_text(RECIPE)
        cli = ["--config", str(config), "--recipes", str(root / "recipes")]
        serves = []
        for _ in range(runs):
            with _quiet():
                started = time.perf_counter()
                assert main([*cli, "serve", "toy"]) == 0, "serve failed"
                serves.append(time.perf_counter() - started)
                assert main([*cli, "stop", "--yes"]) == 0, "stop failed"
        serve = statistics.median(serves)

        to_running, to_ready = [], []
        proc = _supervisor(cli, interval, root / "supervise.log")
        try:
            for _ in range(runs):
                eventually(lambda: _answers(hosts) and len(_engines(hosts)) == 2, 120, "serving",
                           every=LOOK)
                time.sleep(2 * interval)  # watched healthy for a while
                before = _engines(hosts)
                killed = time.perf_counter()
                hosts.node("node2").docker("kill", "sparktui-toy")
                eventually(lambda b=before: _all_new(hosts, b), 300,
                           "every container new and running", every=LOOK)
                to_running.append(time.perf_counter() - killed)
                eventually(lambda: _answers(hosts), 300, "the API again", every=LOOK)
                to_ready.append(time.perf_counter() - killed)
        finally:
            _end(proc)

        proc = _supervisor(cli, 5.0, root / "watch.log")
        try:
            eventually(lambda: "the group runs: watching it as it is" in
                       (root / "watch.log").read_text(), 60, "the watch", every=LOOK)
            time.sleep(10)  # past start-up: imports, the first connections
            cpu0, t0 = _cpu_seconds(proc.pid), time.monotonic()
            time.sleep(watch_minutes * 60)
            cpu1, t1 = _cpu_seconds(proc.pid), time.monotonic()
        finally:
            _end(proc)
        per_hour = (cpu1 - cpu0) / (t1 - t0) * 3600
        with _quiet():
            main([*cli, "stop", "--yes"])

    ready = statistics.median(to_ready)
    goal = serve + 2 * interval
    print(f"\nsupervision of a 2-node group, interval {interval:g} s, two failed checks, "
          f"{runs} runs (each restart the first of its window):")
    print(f"  serve alone (median)                 {serve:6.2f} s   "
          f"({', '.join(f'{t:.2f}' for t in serves)})")
    print(f"  worker killed -> every container new {statistics.median(to_running):6.2f} s   "
          f"({', '.join(f'{t:.2f}' for t in to_running)})")
    print(f"  worker killed -> API answers again   {ready:6.2f} s   "
          f"({', '.join(f'{t:.2f}' for t in to_ready)})")
    print(f"  goal: serve + 2 intervals            {goal:6.2f} s   "
          f"{'met' if ready <= goal else 'MISSED'} (restart overhead {ready - serve:.2f} s)")
    print(f"\nthe supervisor's own CPU at a 5 s interval, watched {t1 - t0:.0f} s:")
    print(f"  {cpu1 - cpu0:.2f} s of CPU -> {per_hour:.1f} s per hour "
          f"({per_hour / 36:.2f}% of one core)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--interval", type=float, default=2.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--watch-minutes", type=float, default=3.0)
    a = ap.parse_args()
    run(a.interval, a.runs, a.watch_minutes)
