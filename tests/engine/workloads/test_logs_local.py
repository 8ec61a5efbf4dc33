"""``logs -f`` on a local node (the built-in kind, run without SSH), on a real dockerd."""

from __future__ import annotations

import os
from pathlib import Path

from polling import eventually
from site_support import interrupt, sparktui_process

LOCAL_CONFIG = """ssh_user = "root"

[[clusters]]
name = "here"
nodes = [{ name = "here1", ssh_ip = "127.0.0.1", ib_ip = "127.0.0.1", rank = 0, local = true }]
"""


def _followers(docker_host: str) -> list[int]:
    """`docker logs` processes talking to this daemon, whoever started them."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"logs" in cmd and f"DOCKER_HOST={docker_host}".encode() in env:
            found.append(int(pid))
    return found


def test_ctrl_c_on_a_local_follow_prints_no_traceback_and_leaves_no_follower(
        test_cluster, tmp_path):
    node = test_cluster(1).nodes[0]  # borrowed for its dockerd only
    for name in ("sparktui-a", "sparktui-b"):
        got = node.docker("run", "-d", "--name", name, "--label", "sparktui.recipe=" + name,
                          "--label", "sparktui.cluster=here", "--label", "sparktui.node=here1",
                          "--label", "sparktui.role=head", "busybox:1", "sh", "-c",
                          "while :; do echo tick; sleep 0.2; done")
        assert got.returncode == 0, got.stderr
    config = tmp_path / "config.toml"
    config.write_text(LOCAL_CONFIG)
    env = {**os.environ, "DOCKER_HOST": node.daemon.host}
    proc = sparktui_process("--config", str(config), "logs", "-f", env=env)
    try:
        assert "tick" in proc.stdout.readline()
        eventually(lambda: len(_followers(node.daemon.host)) >= 2, 30, "both followers")
        code, err = interrupt(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert code == 0, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    eventually(lambda: not _followers(node.daemon.host), 10, "no docker logs left")
