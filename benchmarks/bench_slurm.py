"""serve and stop on a Slurm cluster against the same over SSH, on the test bed's real
Slurm (slurmctld, one slurmd per node, munge: tests/hosts/slurm.py) and real dockerd.

    python benchmarks/bench_slurm.py [--runs 3]

One 2-node cluster, three configs naming the same nodes: one plain (SSH), one with
``[clusters.slurm]`` (node1 the submit host), one with ``allocate = "any"`` too (the job
holds the nodes first, the plan is resolved on them, the launches are its steps). Rounds
are interleaved, each side first in turn. Prints the median wall times of ``sparktui
serve`` (to the head's API answering) and of ``sparktui stop --yes`` (to nothing left on
any node, and no job whose shell still runs: Slurm may still be winding one up,
``COMPLETING``) and the figures of issue #33, for both Slurm sides: Slurm serve minus
SSH serve (goal: at most 3 s) and Slurm stop over SSH stop (goal: at most 1.5x). Needs
root, sshd, dockerd, slurm-wlm and munge.
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
port = 30093
required_nodes = 2
tensor_parallel_size = 2
entrypoint = ["vllm", "serve"]
"""
SLURM = '\n[clusters.slurm]\npartition = "spark"\nsubmit_host = "node1"\n'


def _timed(argv: list[str]) -> float:
    started = time.perf_counter()
    assert main(argv) == 0, argv
    return time.perf_counter() - started


def run(runs: int) -> None:
    with TestCluster(2) as hosts, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        bed = hosts.start_slurm(partition="spark")
        plain = hosts.write_config(root / "ssh.toml", prefill_known_hosts=True)
        configs = {"ssh": plain, "slurm": root / "slurm.toml", "any": root / "any.toml"}
        configs["slurm"].write_text(plain.read_text() + SLURM)
        configs["any"].write_text(plain.read_text() + SLURM + 'allocate = "any"\n')
        (root / "recipes" / "toy").mkdir(parents=True)
        (root / "recipes" / "toy" / "recipe.toml").write_text(RECIPE)
        times: dict[str, dict[str, list[float]]] = {
            side: {"serve": [], "stop": []} for side in configs}
        sides = list(configs)
        for n in range(runs):
            order = sides[n % 3:] + sides[:n % 3]
            for side in order:
                cli = ["--config", str(configs[side]), "--recipes", str(root / "recipes")]
                times[side]["serve"].append(_timed([*cli, "serve", "toy"]))
                times[side]["stop"].append(_timed([*cli, "stop", "--yes"]))
                left = [x.name for x in hosts.nodes if x.docker("ps", "-aq").stdout.strip()]
                assert not left, f"containers left on {left}"
                alive = {j: i for j, i in bed.jobs().items() if i["state"] != "COMPLETING"}
                assert not alive, alive  # COMPLETING: its shell (and cleanup) has ended
        med = {side: {what: statistics.median(v) for what, v in t.items()}
               for side, t in times.items()}
        print(f"\nserve and stop of a 2-node group, SSH vs Slurm, {runs} runs each:")
        for what in ("serve", "stop"):
            for side in sides:
                print(f"  {what:5} {side:5}  median {med[side][what]:6.2f} s   runs "
                      + ", ".join(f"{t:.2f}" for t in times[side][what]))
        for side in ("slurm", "any"):
            extra = med[side]["serve"] - med["ssh"]["serve"]
            ratio = med[side]["stop"] / med["ssh"]["stop"]
            print(f"  {side}: submit to serving: SSH serve + {extra:.2f} s (goal: + 3 s at "
                  f"most); stop: {ratio:.2f}x the SSH stop (goal: 1.5x at most)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    run(ap.parse_args().runs)
