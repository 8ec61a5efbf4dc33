"""The host pool: its reset leaves nothing for the next test (one test dirties a lent
cluster in every way a test can without breaking it, the next one gets the same cluster
back clean; both run on one worker, in this order: xdist_group), a crashed test
process's hosts are reaped, and parallel processes claim their own addresses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hosts import claims, dockerd, procs
from hosts.cluster import reap_stale_clusters, require_sshd
from hosts.sshd import keygen
from lookalike import Why
from polling import eventually

# A look-alike, not the real vLLM (tests/lookalike.py): these tests check the host pool's reset of
# the look-alike's knobs.
LOOKALIKE = Why.TESTBED

TESTS = Path(__file__).resolve().parent

pytestmark = pytest.mark.xdist_group("hosts-reset")

SEEN: dict[str, object] = {}
STATE_FILES = {"home", "tmux", "sshd_config", "sshd.log", "sshd.pid", "ssh_host_ed25519_key",
               "ssh_host_ed25519_key.pub"}
HOME_FILES = {".bashrc", ".bash_profile", ".profile"}


def test_a_test_dirties_its_lent_cluster(test_cluster, tmp_path):
    cluster = test_cluster(2)
    n1, n2 = cluster.nodes
    SEEN.update(root=cluster.root, keys=[n.host_key_pub for n in cluster.nodes],
                ports=[n.port for n in cluster.nodes], vllm=n1.image_id("vllm:test"),
                root_files=sorted(p.name for p in cluster.root.iterdir()),
                bin_files=sorted(p.name for p in cluster.bin_dir.iterdir()))
    for node in cluster.nodes:
        got = node.run_standin("docker", "run", "-d", "--name", "left", "busybox:1",
                               "sleep", "600")
        assert got.returncode == 0, got.stderr
        assert node.docker("run", "-d", "busybox:1", "sleep", "600").returncode == 0
        r = cluster.ssh(node, "tmux new-session -d -s job 'sleep 600'; sudo -n true; "
                              "setsid sleep 600 </dev/null >/dev/null 2>&1 &")
        assert r.returncode == 0, r.stderr
        node.set_engine(running=9)
        node.set_gpu(fail=True)
        (node.state_dir / "kernel.log").write_text("2025-01-01T00:00:00 Xid 79\n")
        (node.state_dir / "kernel.deny").write_text("")
        (node.state_dir / "extra").mkdir()
        (node.home / "given.json").write_text("{}")
        (node.home / ".cache").mkdir()
    n1.remove_image("busybox:1")
    n2.add_image("vllm:test", variant="pulled-later")
    cluster.write_known_hosts()
    (cluster.root / "old_known_hosts").write_text("")
    (cluster.bin_dir / "nvidia-smi").write_text("#!/bin/sh\nexit 1\n")
    (cluster.bin_dir / "extra-tool").write_text("#!/bin/sh\n")
    # A connection left open and a host key changed on disk (sshd still serves the old
    # one) on node2; node1 "powers off" by the stand-in (its sshd killed from the node,
    # not by a fault method).
    SEEN["held"] = subprocess.Popen(cluster.ssh_argv(n2, "exec sleep 601"),
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
    eventually(lambda: n2.processes("^sleep 601"), 15, "the held session")
    keygen(n2.host_key_path, "changed")
    assert cluster.ssh(n1, "poweroff").returncode == 0
    eventually(lambda: not n1.running, 15, "node1 down")
    assert not cluster.broken  # nothing a fault method marks: the pool resets it


def test_the_next_test_gets_it_back_clean(test_cluster):
    cluster = test_cluster(2)
    if "root" not in SEEN:
        pytest.skip("runs after test_a_test_dirties_its_lent_cluster")
    assert cluster.root == SEEN["root"]  # the same hosts, lent again
    eventually(lambda: SEEN["held"].poll() is not None, 15, "the held connection closed")
    n1, n2 = cluster.nodes
    for node in cluster.nodes:
        assert node.running, node
        # no connection left (the start-up probe's pre-auth child may take a moment)
        eventually(lambda n=node: not procs.descendants(n.proc.pid), 10, "no connection")
        assert not node.processes() and not node.containers()
        assert not node.recorded_docker() and not node.recorded_sudo()
        assert not node.recorded_power()
        assert {p.name for p in node.state_dir.iterdir()} == STATE_FILES
        assert {p.name for p in node.home.iterdir()} == HOME_FILES
        assert not list((node.state_dir / "tmux").iterdir())
    assert [n.host_key_pub for n in cluster.nodes] == SEEN["keys"]
    assert [n.port for n in cluster.nodes] == SEEN["ports"]
    assert not cluster.known_hosts_path.exists()
    assert sorted(p.name for p in cluster.root.iterdir()) == SEEN["root_files"]
    assert sorted(p.name for p in cluster.bin_dir.iterdir()) == SEEN["bin_files"]
    assert n1.image_id("busybox:1") and n2.image_id("vllm:test") == SEEN["vllm"]
    for node in cluster.nodes:  # strict host key checking against the first keys
        r = cluster.ssh(node, "nvidia-smi -L; tmux ls; echo rc=$?; docker ps -aq | wc -l")
        assert r.returncode == 0, r.stderr
        assert "NVIDIA GB10" in r.stdout and "rc=1" in r.stdout, r.stdout
        assert r.stdout.split()[-1] == "0"


CRASHING_RUN = """
import sys, time
sys.path.insert(0, sys.argv[1])
from hosts.cluster import TestCluster
cluster = TestCluster(1).start()
node = cluster.nodes[0]
got = node.run_standin("docker", "run", "-d", "--name", "left", "busybox:1", "sleep", "600")
assert got.returncode == 0, got.stderr
print(cluster.root, node.daemon.pool.root, node.daemon.bridge, flush=True)
time.sleep(600)
"""


@pytest.mark.hosts
def test_a_crashed_workers_hosts_and_daemons_are_reaped_by_the_next():
    """A test process killed mid-run (an xdist worker that crashed) leaves a container's
    shim and its folders; the next process's first cluster and pool reap them."""
    require_sshd()
    dockerd.require_docker()
    run = subprocess.Popen([sys.executable, "-c", CRASHING_RUN, str(TESTS)],
                           stdout=subprocess.PIPE, text=True)
    try:
        hosts_root, pool_root, bridge = run.stdout.readline().split()
    finally:
        run.kill()
        run.wait(10)
    assert Path(f"/sys/class/net/{bridge}").exists()
    dockerd.reap_stale_pools()
    reap_stale_clusters()

    def gone() -> bool:
        return not (Path(hosts_root).exists() or Path(pool_root).exists()
                    or Path(f"/sys/class/net/{bridge}").exists()
                    or procs.pids_with_cmdline(pool_root)
                    or procs.pids_with_env("SPARKTUI_NODE_STATE", hosts_root)
                    or procs.pids_with_env("SPARKTEST_DOCKERD", pool_root))

    eventually(gone, 30, "the crashed run's processes, folders and bridge")


def test_a_claim_is_this_process_until_it_exits():
    """Parallel test processes never share a loopback block, a bridge tag or a subnet."""
    value = f"test-{os.getpid()}"
    assert claims.try_claim("probe", value) and not claims.try_claim("probe", value)
    other = [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
             "from hosts import claims; print(claims.try_claim('probe', sys.argv[2]))",
             str(TESTS), value]
    assert subprocess.run(other, capture_output=True, text=True).stdout == "False\n"
    claims.release("probe", value)
    assert subprocess.run(other, capture_output=True, text=True).stdout == "True\n"


def test_missing_sshd_skips_or_fails_under_ci(monkeypatch):
    """Without sshd the host tests skip; under CI=true they fail (the pool needs it)."""
    import hosts.cluster

    monkeypatch.setattr(hosts.cluster, "SSHD", "/nonexistent/sshd")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="openssh-server"):
        hosts.cluster.require_sshd()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="openssh-server"):
        hosts.cluster.require_sshd()
