"""A simulated cluster of DGX Spark nodes: one real sshd per node on loopback."""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from . import dockerd, procs, reset, slurm
from .sshd import SSHD, HostStartError, Node, free_port, keygen

STANDIN_SRC = Path(__file__).resolve().parent / "standin"
KEEP_ENV = "SPARKTUI_KEEP_TEST_HOSTS"
STOP_GRACE = 3  # set to 1 to keep the temp dir for debugging

_reaped = False


def reap_stale_clusters() -> None:
    """Clean up clusters whose owning test process died without stop() (e.g. SIGKILL):
    kill what still runs on them and remove their temp dir. Clusters of live test runs
    are left alone."""
    for root in procs.orphaned_roots("sparktui-hosts-*"):
        procs.kill_env_matching("SPARKTUI_NODE_STATE", str(root))
        slurm.reap(root)  # its Slurm bed's daemons and steps, if a test started one
        shutil.rmtree(root, ignore_errors=True)


def _toml_str(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid TOML basic string


class TestCluster:
    """N simulated nodes (node1..nodeN) sharing one user key and one stand-in bin dir."""

    __test__ = False  # not a pytest test class

    def __init__(self, n: int = 2, *, images: Any = None) -> None:
        if not 1 <= n <= 200:
            raise ValueError("n must be within 1..200")
        require_sshd()
        dockerd.require_docker()
        global _reaped
        if not _reaped:
            _reaped = True
            reap_stale_clusters()
        self.images = images
        self.root = Path(tempfile.mkdtemp(prefix="sparktui-hosts-", dir="/tmp"))
        self.user = getpass.getuser()
        self.key_path = self.root / "id_ed25519"
        self.authorized_keys = self.root / "authorized_keys"
        self.known_hosts_path = self.root / "known_hosts"
        self.bin_dir = self.root / "bin"
        self._stopped = False
        self.broken = False  # a fault was injected: the pool stops it, never lends it again
        self.slurm: slurm.SlurmBed | None = None  # started by start_slurm, for one test
        procs.write_owner(self.root)
        keygen(self.key_path, "sparktui-test-user")
        shutil.copy(self.key_path.with_name("id_ed25519.pub"), self.authorized_keys)
        self._install_standins()
        # Each node gets a real dockerd of the test run's pool, and that daemon's address.
        self.daemons = dockerd.pool().acquire(n)
        self.nodes = []
        for i, daemon in enumerate(self.daemons, 1):
            node = Node(self, i, daemon.addr)
            node.daemon = daemon
            daemon.assign(node)
            self.nodes.append(node)
        if images is not None:
            for node in self.nodes:
                node.set_images(images)

    def __repr__(self) -> str:
        return f"<TestCluster {[n.name for n in self.nodes]} in {self.root}>"

    def __enter__(self) -> TestCluster:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def node(self, name: str) -> Node:
        for node in self.nodes:
            if node.name == name:
                return node
        raise KeyError(name)

    __getitem__ = node

    def standins(self) -> dict[str, str]:
        """The bin dir's programs by name: their text, or ``"->target"`` for a link."""
        files = {}
        for src in STANDIN_SRC.iterdir():
            if src.name.startswith(".") or src.name == "__pycache__" or not src.is_file():
                continue
            text = src.read_text()
            if not src.name.endswith(".py") and text.startswith("#!") \
                    and "python" in text.split("\n", 1)[0]:
                # run the stand-ins with this interpreter (has the right Python version);
                # -I -S: stdlib only, no site start-up (they run on every docker call)
                text = f"#!{sys.executable} -IS\n" + text.split("\n", 1)[1]
            files[src.name] = text
        files["pkill"] = "->pgrep"  # node-scoped pkill (see standin/pgrep)
        files["poweroff"] = "->shutdown"  # never the real one on a node
        return files

    def _install_standins(self) -> None:
        self.bin_dir.mkdir(exist_ok=True)
        for name, text in self.standins().items():
            dst = self.bin_dir / name
            if text.startswith("->"):
                dst.symlink_to(text[2:])
            else:
                dst.write_text(text)
                dst.chmod(0o755)

    # ------------------------------------------------------------------ lifecycle
    def start(self, timeout: float = 10.0) -> TestCluster:
        """Start every node's sshd (in parallel) and wait until each sends its banner."""
        for node in self.nodes:
            if not node.running:
                node.port = node.port or free_port(node.addr)
                node._spawn()
        for node in self.nodes:
            try:
                node.wait_ready(timeout)
            except HostStartError:
                node.kill()
                node.start(timeout)  # retries with another port if it was taken
        return self

    def stop(self) -> None:
        """Kill every process of this cluster and remove its temp dir (idempotent)."""
        if self._stopped:
            return
        self._stopped = True
        self.stop_slurm()
        for node in self.nodes:
            with contextlib.suppress(Exception):
                node.stop()
        procs.kill_env_matching("SPARKTUI_NODE_STATE", str(self.root))
        dockerd.pool().release(self.daemons)
        if os.environ.get(KEEP_ENV) != "1":
            shutil.rmtree(self.root, ignore_errors=True)

    @property
    def stopped(self) -> bool:
        return self._stopped

    def reset(self) -> None:
        """Back to what start() left, for the next test (reset.py says what that is)."""
        self.stop_slurm()
        reset.reset_cluster(self)

    def start_slurm(self, partition: str = "spark", kill_wait: int = 30) -> slurm.SlurmBed:
        """Real Slurm on these nodes (slurm.py): munged, slurmctld, one slurmd per node,
        every node idle in ``partition``. Stopped by ``reset``/``stop``: a lent cluster
        goes back without it. Every node's shell already has its ``SLURM_CONF``."""
        if self.slurm is None:
            bed = slurm.SlurmBed(self, partition, kill_wait)
            self.slurm = bed.start()
        return self.slurm

    def stop_slurm(self) -> None:
        if self.slurm is not None:
            self.slurm.stop()
            self.slurm = None

    # ------------------------------------------------------------------ config files
    def known_hosts_lines(self, nodes: list[Node] | None = None) -> list[str]:
        return [n.known_hosts_line() for n in (nodes or self.nodes)]

    def write_known_hosts(self, path: str | os.PathLike | None = None) -> Path:
        """Write every node's current known_hosts line (default: known_hosts_path)."""
        target = Path(path) if path else self.known_hosts_path
        target.write_text("".join(line + "\n" for line in self.known_hosts_lines()))
        return target

    def trust_nodes(self, nodes: list[Node] | None = None) -> None:
        """Let ``nodes`` (default: all) reach every node of the cluster over SSH, as an
        operator sets up once for node-to-node copies (docs/pull.md): each gets the
        cluster's user key (already authorized everywhere) as its own ``~/.ssh`` identity
        and every node's current host key in its known_hosts. ``reset`` removes both."""
        lines = "".join(line + "\n" for line in self.known_hosts_lines())
        key = self.key_path.read_bytes()
        for node in nodes or self.nodes:
            ssh_dir = node.home / ".ssh"
            ssh_dir.mkdir(mode=0o700, exist_ok=True)
            (ssh_dir / "known_hosts").write_text(lines)
            identity = ssh_dir / "id_ed25519"
            identity.write_bytes(key)
            identity.chmod(0o600)

    def write_config(
        self,
        path: str | os.PathLike,
        cluster_name: str = "test",
        nccl: bool = True,
        extra_toml: str = "",
        prefill_known_hosts: bool = False,
    ) -> Path:
        """Write a sparktui config.toml describing this cluster; returns the path."""
        if prefill_known_hosts:
            self.write_known_hosts()
        lines = [
            f"ssh_user = {_toml_str(self.user)}",
            f"ssh_key_path = {_toml_str(str(self.key_path))}",
            f"known_hosts_path = {_toml_str(str(self.known_hosts_path))}",
            # Test containers' main processes (sleep, sh) often ignore SIGTERM, as PID 1
            # does without a handler: a short grace keeps stops quick.
            f"stop_grace_seconds = {STOP_GRACE}",
            "",
            "[[clusters]]",
            f"name = {_toml_str(cluster_name)}",
            f"master_ib_ip = {_toml_str(self.nodes[0].addr)}",
            "nodes = [",
        ]
        for rank, n in enumerate(self.nodes):
            lines.append(
                f"  {{ name = {_toml_str(n.name)}, ssh_ip = {_toml_str(n.addr)}, "
                f"ssh_port = {n.port}, ib_ip = {_toml_str(n.addr)}, rank = {rank} }},"
            )
        lines.append("]")
        if nccl:
            lines += [
                "",
                f"[nccl.{_toml_str(cluster_name)}]",
                'ib_hca = "rocep1s0f0"',
                'socket_ifname = "lo"',
                "ib_gid_index = 3",
                "ib_disable = 1",  # no /dev/infiniband here: the real daemon needs the device
            ]
        text = "\n".join(lines) + "\n"
        if extra_toml:
            text += "\n" + extra_toml.strip("\n") + "\n"
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        return target

    # ------------------------------------------------------------------ helpers
    def recorded_docker(self, node: Node | str) -> list[list[str]]:
        node = self.node(node) if isinstance(node, str) else node
        return node.recorded_docker()

    def ssh_argv(self, node: Node | str, command: str | None = None) -> list[str]:
        """OpenSSH client argv for node with strict host key checking against a
        known_hosts file written from the nodes' current keys."""
        node = self.node(node) if isinstance(node, str) else node
        kh = self.root / "ssh_client_known_hosts"
        kh.write_text("".join(line + "\n" for line in self.known_hosts_lines()))
        argv = [
            "ssh", "-i", str(self.key_path), "-p", str(node.port),
            "-o", f"UserKnownHostsFile={kh}", "-o", "GlobalKnownHostsFile=/dev/null",
            "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes",
            "-o", "IdentitiesOnly=yes", "-o", "ConnectTimeout=5", "-o", "LogLevel=ERROR",
            "-F", "/dev/null", f"{self.user}@{node.addr}",
        ]  # fmt: skip
        return [*argv, command] if command is not None else argv

    def ssh(
        self, node: Node | str, command: str, timeout: float = 30, **kw: Any
    ) -> subprocess.CompletedProcess:
        """Run command on node with the OpenSSH client; returns CompletedProcess (text)."""
        if "input" not in kw:
            kw.setdefault("stdin", subprocess.DEVNULL)
        return subprocess.run(
            self.ssh_argv(node, command), capture_output=True, text=True, timeout=timeout, **kw
        )

    async def connect(self, node: Node | str, **kw: Any):
        """asyncssh connection to node (strict host key checking, the cluster's key)."""
        import asyncssh

        node = self.node(node) if isinstance(node, str) else node
        known = asyncssh.import_known_hosts("\n".join(self.known_hosts_lines()))
        kw.setdefault("known_hosts", known)
        kw.setdefault("client_keys", [str(self.key_path)])
        kw.setdefault("username", self.user)
        kw.setdefault("connect_timeout", 5)
        return await asyncssh.connect(node.addr, node.port, **kw)


def require_sshd() -> None:
    """pytest.skip when OpenSSH's sshd/ssh-keygen are missing (pytest.fail under CI=true)."""
    missing = [p for p in (SSHD,) if not os.path.exists(p)]
    missing += [p for p in ("ssh-keygen", "ssh") if shutil.which(p) is None]
    if not missing:
        return
    import pytest

    reason = f"OpenSSH not installed ({', '.join(missing)} missing): apt-get install openssh-server"
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)
