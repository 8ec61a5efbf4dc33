"""The test bed's real Slurm (tests/hosts/slurm.py): one slurmctld, one slurmd per test
node, each node's steps on that node's own dockerd, sbatch/squeue/scancel/srun as they
are, from this machine and from a node's SSH session (the submit host)."""

from __future__ import annotations

import shlex
from pathlib import Path

from hosts import procs
from polling import eventually

IMAGE = "busybox:1"  # a plain image: the steps' containers run sleep, no engine


def step(node: str, command: str) -> str:
    """One task on ``node``, as sparktui's job script starts each launch."""
    return (f"srun --nodes=1 --ntasks=1 --nodelist={node} --overlap "
            f"-- sh -c {shlex.quote(command)} </dev/null")


def job_script(bed, name: str, body: list[str], cleanup: list[str] = ()) -> Path:
    lines = ["#!/bin/bash", "#SBATCH --exclusive", "#SBATCH --nodes=2",
             f"#SBATCH --job-name={name}", f"#SBATCH --partition={bed.partition}",
             f"#SBATCH --chdir={bed.root / 'out'}", f"#SBATCH --output={name}-%j.out"]
    if cleanup:
        lines += ["cleanup() {", "trap - TERM INT EXIT", "set +e", *cleanup, "exit 0", "}",
                  "trap cleanup TERM INT EXIT"]
    path = bed.root / "out" / f"{name}.sbatch"
    path.write_text("\n".join([*lines, *body]) + "\n")
    return path


def submit(bed, script: Path) -> str:
    got = bed.run("sbatch", "--parsable", str(script))
    assert got.returncode == 0, got.stderr
    return got.stdout.strip().split(";")[0]


def output(bed, name: str, job: str) -> str:
    path = bed.root / "out" / f"{name}-{job}.out"
    return path.read_text() if path.exists() else ""


def running(bed, job: str) -> dict | None:
    info = bed.jobs().get(job)
    return info if info and info["state"] == "RUNNING" else None


def container_on(node, name: str) -> bool:
    info = node.containers().get(name)
    return bool(info and info["State"]["Running"])


def test_steps_run_on_their_nodes_dockerd_and_scancel_terms_them(test_cluster):
    cluster = test_cluster(n=2)
    bed = cluster.start_slurm(partition="spark")
    assert bed.node_states() == {"node1": "idle", "node2": "idle"}
    # each step starts a container on its node's dockerd (its DOCKER_HOST is the node's,
    # by the TaskProlog) and removes it when Slurm TERMs the step
    keep = ('docker run -d --name "held-$SLURMD_NODENAME" ' + IMAGE + " sleep 1d"
            ' && trap \'docker rm -f "held-$SLURMD_NODENAME"; exit 0\' TERM'
            " && while :; do sleep 1 & wait $!; done")
    first = submit(bed, job_script(bed, "held", [step("node1", keep) + " &",
                                                 step("node2", keep) + " &", "wait"]))
    info = eventually(lambda: running(bed, first), what="the first job running",
                      explain=bed.logs)
    assert info["nodes"] == "node[1-2]"
    for node in cluster.nodes:
        eventually(lambda node=node: container_on(node, f"held-{node.name}"),
                   what=f"the step's container on {node.name}", explain=bed.logs)
        assert set(node.containers()) == {f"held-{node.name}"}  # its own dockerd only
        # the node's docker (its stand-in recorder, on the PATH the prolog gave) ran it
        assert ["docker", "run", "-d", "--name", f"held-{node.name}"] in [
            argv[:5] for argv in cluster.recorded_docker(node)]

    second = submit(bed, job_script(bed, "waits", ["srun -l hostname"]))
    pending = eventually(lambda: bed.jobs().get(second, {}).get("reason") in
                         ("Resources", "Priority") and bed.jobs()[second],
                         what="the second job pending with a reason", explain=bed.logs)
    assert pending["state"] == "PENDING"

    got = bed.run("scancel", first)
    assert got.returncode == 0, got.stderr
    for node in cluster.nodes:
        eventually(lambda node=node: not node.containers(),
                   what=f"the trap removing {node.name}'s container", explain=bed.logs)
    eventually(lambda: {"0: node1", "1: node2"} <= set(output(bed, "waits", second).split("\n")),
               what="the second job run on both nodes", explain=bed.logs)


def test_a_signalled_batch_script_cleans_up_with_steps_of_its_own(test_cluster):
    """A plain ``scancel`` ends the job before its batch script's trap can start a step
    (srun: "job has expired"); a TERM to the batch shell alone (``scancel --batch
    --signal=TERM``) lets the trap run a cleanup step on each node, as sparktui's job
    script does, and the job ends when the script exits."""
    cluster = test_cluster(n=2)
    bed = cluster.start_slurm()
    run = f'docker run --rm --name "serve-$SLURMD_NODENAME" {IMAGE} sleep 1d'
    body = [step("node1", run) + " &", step("node2", run) + " &", "wait"]
    cleanup = [step(n, f"docker rm -f serve-{n}; echo removed on $(hostname)")
               for n in ("node1", "node2")]
    names = {"node1", "node2"}

    job = submit(bed, job_script(bed, "plain", body, cleanup))
    for node in cluster.nodes:
        eventually(lambda node=node: container_on(node, f"serve-{node.name}"),
                   what=f"the container on {node.name}", explain=bed.logs)
    assert bed.run("scancel", job).returncode == 0
    eventually(lambda: output(bed, "plain", job).count("has expired") == len(names),
               what="the trap's steps refused", explain=bed.logs)
    assert "removed on" not in output(bed, "plain", job)
    for node in cluster.nodes:  # the steps' containers get docker run's proxied TERM...
        node.remove_containers()  # ...which sleep as PID 1 ignores: the test clears them

    job = submit(bed, job_script(bed, "batch", body, cleanup))
    for node in cluster.nodes:
        eventually(lambda node=node: container_on(node, f"serve-{node.name}"),
                   what=f"the container on {node.name}", explain=bed.logs)
    got = bed.run("scancel", "--batch", "--signal=TERM", job)
    assert got.returncode == 0, got.stderr
    eventually(lambda: job not in bed.jobs(), what="the job ended", explain=bed.logs)
    said = output(bed, "batch", job)
    assert {f"removed on {n}" for n in names} <= set(said.split("\n")), said
    assert not any(node.containers() for node in cluster.nodes)


def test_a_node_is_a_submit_host(test_cluster):
    """sbatch over SSH on one node (its shell has SLURM_CONF, as sparktui's submit host
    would), squeue seen from another, each task with its own node's environment."""
    cluster = test_cluster(n=2)
    bed = cluster.start_slurm()
    out = bed.root / "out" / "env.out"
    wrap = 'srun -l sh -c "echo \\$SPARKTUI_NODE_NAME \\$(hostname) \\$DOCKER_HOST"'
    got = cluster.ssh("node1", shlex.join(["sbatch", "--parsable", "-N2", "--exclusive",
                                           f"--output={out}", f"--wrap={wrap}"]))
    assert got.returncode == 0, got.stderr
    job = got.stdout.strip()
    seen = cluster.ssh("node2", f"squeue -h -t all -j {job} -o %i")
    assert seen.stdout.strip() == job, seen.stderr
    want = {f"{i}: {n.name} {n.name} {n.daemon.host}" for i, n in enumerate(cluster.nodes)}
    eventually(lambda: want <= set(out.read_text().split("\n")) if out.exists() else False,
               what="each task's own node environment", explain=bed.logs)


def test_the_bed_ends_with_the_test(test_cluster):
    """A lent cluster goes back (``reset``, as the pool does) without its Slurm: no
    daemon, step or task left."""
    cluster = test_cluster(n=2)
    bed = cluster.start_slurm()
    job = submit(bed, job_script(bed, "left", [step("node1", "sleep 1d") + " &",
                                               step("node2", "sleep 1d") + " &", "wait"]))
    eventually(lambda: running(bed, job), what="a job running", explain=bed.logs)
    root = str(bed.root)
    assert procs.pids_with_env("SPARKTEST_SLURM", root)
    stepds = [p for p in procs.pids_with_env("SPARKTEST_SLURM", root)
              if b"slurmstepd" in procs.cmdline(p)]
    assert stepds  # slurmstepd carries the bed's mark: a dead run's are reaped too
    cluster.reset()
    assert cluster.slurm is None
    assert not [p for p in procs.pids_with_env("SPARKTEST_SLURM", root) if procs.is_alive(p)]
    assert not bed.root.exists()
