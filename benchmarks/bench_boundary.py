"""What the boundary on node answers costs and saves, on the real sshd and dockerd test
hosts (tests/hosts), for this checkout and, with ``--before DIR``, another one (a
``git worktree`` of an earlier commit); prints figures.

    python benchmarks/bench_boundary.py [--before DIR] [--rounds 15] [--nodes 4]

1. The endless answer: a one-node cluster whose head engine answers every request with a
   200 whose body never ends (tests/hostile_support.py). ``sparktui health`` is run once
   per checkout: its peak RSS (``wait4``'s rusage of that process) and its wall time,
   against the health timeout.
2. Health of ``--nodes`` serving nodes (a toy recipe, one container each): ``sparktui
   health`` run ``--rounds`` times per checkout, interleaved round by round so the
   machine's load falls on both alike. Printed: the median wall time and the median CPU
   (user + system) of the process, and their ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from hostile_support import hostile_mode, hostile_recipe, run_sparktui  # noqa: E402
from hosts.cluster import TestCluster  # noqa: E402

from sparktui.config.loader import load_config  # noqa: E402
from sparktui.engine.remote.hostkeys import init_host_keys  # noqa: E402

TOY = """engine = "vllm"
docker_image = "vllm:test"
model = "org/toy"
port = 30011
required_nodes = {n}
tensor_parallel_size = {n}
entrypoint = ["vllm", "serve"]
"""
TIMEOUT = 5


def prepare(hosts: TestCluster, root: Path, recipe: str) -> list[str]:
    """A config (health timeout ``TIMEOUT`` s, host keys recorded) and one recipe ``r``:
    the CLI's leading arguments."""
    config = hosts.write_config(root / "config.toml")
    config.write_text(f"health_timeout_seconds = {TIMEOUT}\nready_timeout_seconds = 30\n"
                      + config.read_text())
    loaded = load_config(config)
    asyncio.run(init_host_keys(loaded.config, loaded.config.clusters[0].nodes))
    (root / "recipes" / "r").mkdir(parents=True)
    (root / "recipes" / "r" / "recipe.toml").write_text(recipe)
    return ["--config", str(config), "--recipes", str(root / "recipes")]


def trees(before: Path | None) -> list[tuple[str, Path]]:
    return [("before", before), ("after", ROOT)] if before else [("this", ROOT)]


def endless(before: Path | None) -> None:
    with TestCluster(1) as hosts, tempfile.TemporaryDirectory() as tmp:
        cli = prepare(hosts, Path(tmp), hostile_recipe())
        served = run_sparktui(*cli, "serve", "r")
        assert served.code == 0, served.out + served.err
        hostile_mode(hosts.nodes[0], "endless")
        print(f"health against an endless HTTP answer (health timeout {TIMEOUT} s):")
        for name, tree in trees(before):
            run = run_sparktui(*cli, "health", tree=tree)
            said = next((line.strip() for line in run.out.splitlines() if "node1:" in line), "")
            print(f"  {name:<7} peak RSS {run.peak_rss_mb:8.1f} MB   wall {run.seconds:5.2f} s"
                  f"   exit {run.code}   {said[:70]}")
        hostile_mode(hosts.nodes[0], "names")
        run_sparktui(*cli, "stop", "--yes")


def serving(before: Path | None, nodes: int, rounds: int) -> None:
    with TestCluster(nodes) as hosts, tempfile.TemporaryDirectory() as tmp:
        cli = prepare(hosts, Path(tmp), TOY.format(n=nodes))
        assert run_sparktui(*cli, "serve", "r").code == 0
        found: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in trees(before)}
        for _name, tree in trees(before):  # warm: the files in the page cache
            run_sparktui(*cli, "health", tree=tree)
        for _ in range(rounds):
            for name, tree in trees(before):
                run = run_sparktui(*cli, "health", tree=tree)
                assert run.code == 0, run.err
                found[name].append((run.seconds, run.cpu_seconds))
        run_sparktui(*cli, "stop", "--yes")
    print(f"sparktui health of {nodes} serving nodes, median of {rounds}, interleaved:")
    medians = {name: (statistics.median(w for w, _ in runs),
                      statistics.median(c for _, c in runs)) for name, runs in found.items()}
    for name, (wall, cpu) in medians.items():
        print(f"  {name:<7} wall {wall * 1000:7.1f} ms   process CPU {cpu * 1000:7.1f} ms")
    if before:
        (wall_a, cpu_a), (wall_b, cpu_b) = medians["after"], medians["before"]
        print(f"  after / before: wall {wall_a / wall_b:.3f}x, CPU {cpu_a / cpu_b:.3f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="another checkout to compare with")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--nodes", type=int, default=4)
    args = parser.parse_args()
    endless(args.before)
    serving(args.before, args.nodes, args.rounds)


if __name__ == "__main__":
    main()
