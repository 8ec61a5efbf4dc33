"""One simulated node: a real OpenSSH sshd on its own loopback address, plus its state."""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from . import procs
from .node_docker import DockerNode
from .node_state import NodeState
from .slurm import conf_path as slurm_conf_path

SSHD = "/usr/sbin/sshd"
SSH_KEYGEN = "ssh-keygen"


class HostStartError(RuntimeError):
    pass


def keygen(path: Path, comment: str, kind: str = "ed25519") -> None:
    for p in (path, path.with_name(path.name + ".pub")):
        p.unlink(missing_ok=True)
    subprocess.run(
        [SSH_KEYGEN, "-q", "-t", kind, "-N", "", "-C", comment, "-f", str(path)],
        check=True,
        stdin=subprocess.DEVNULL,
        capture_output=True,
    )


def free_port(addr: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((addr, 0))
        return s.getsockname()[1]


class Node(DockerNode, NodeState):
    """A simulated DGX Spark node (see README.md for the API)."""

    __test__ = False

    def __init__(self, cluster: Any, index: int, addr: str) -> None:
        self.cluster = cluster
        self.index = index
        self.name = f"node{index}"
        self.addr = addr
        self.port = 0
        self.state_dir = Path(cluster.root) / self.name
        self.home = self.state_dir / "home"
        self.host_key_path = self.state_dir / "ssh_host_ed25519_key"
        self.config_path = self.state_dir / "sshd_config"
        self.log_path = self.state_dir / "sshd.log"
        self.proc: subprocess.Popen | None = None
        self._stopped: list[int] = []
        self._orphans: list[tuple[int, str | None]] = []
        self.sshd_options: list[str] = []  # more sshd_config lines (``reconfigure``)
        for d in (self.home, self.state_dir / "tmux"):
            d.mkdir(parents=True, exist_ok=True)
        os.chmod(self.state_dir / "tmux", 0o700)
        keygen(self.host_key_path, f"{self.name}-host")
        self.host_keys = {p: p.read_bytes() for p in self._host_key_files()}  # for reset
        self._write_home()

    def __repr__(self) -> str:
        return f"<Node {self.name} {self.addr}:{self.port}>"

    # ------------------------------------------------------------------ environment
    @property
    def path_env(self) -> str:
        return f"{self.cluster.bin_dir}:/usr/local/bin:/usr/bin:/bin"

    @property
    def env(self) -> dict[str, str]:
        """Variables every SSH session on this node gets (via sshd SetEnv)."""
        return {
            "PATH": self.path_env,
            "HOME": str(self.home),
            "SPARKTUI_NODE_STATE": str(self.state_dir),
            "SPARKTUI_NODE_ADDR": self.addr,
            "SPARKTUI_NODE_NAME": self.name,
            "TMUX_TMPDIR": str(self.state_dir / "tmux"),
            "DOCKER_HOST": self.daemon.host,
            # where the cluster's Slurm bed puts its slurm.conf (slurm.py): a node is a
            # submit host once a test starts one, and a node without Slurm until then
            "SLURM_CONF": str(slurm_conf_path(self.cluster.root)),
        }

    def home_files(self) -> dict[str, str]:
        # Login shells (interactive `ssh host`, tmux windows) run /etc/profile, which on
        # Debian resets PATH; the per-node ~/.bash_profile and ~/.profile put it back.
        pw_dir = pwd.getpwuid(os.getuid()).pw_dir
        rc = f'case "$PWD" in "{pw_dir}") cd "$HOME" ;; esac\n'
        profile = f'PATH="{self.path_env}"; export PATH\n'
        return {".bashrc": f"# sparktui test host {self.name}\n{rc}",
                ".bash_profile": profile + '[ -f ~/.bashrc ] && . ~/.bashrc\n',
                ".profile": profile + rc}

    def _write_home(self) -> None:
        for name, text in self.home_files().items():
            (self.home / name).write_text(text)

    def _write_sshd_config(self) -> None:
        self.config_path.write_text(self.sshd_config_text())

    def sshd_config_text(self) -> str:
        setenv = " ".join(f'"{k}={v}"' for k, v in self.env.items())
        return (
            "\n".join(
                [
                    f"ListenAddress {self.addr}:{self.port}",
                    f"HostKey {self.host_key_path}",
                    f"PidFile {self.state_dir / 'sshd.pid'}",
                    f"AuthorizedKeysFile {self.cluster.authorized_keys}",
                    "PubkeyAuthentication yes",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "UsePAM no",
                    "StrictModes no",
                    "PermitRootLogin prohibit-password",
                    "PermitUserRC no",
                    "AllowTcpForwarding yes",
                    "X11Forwarding no",
                    "PrintMotd no",
                    "PrintLastLog no",
                    "UseDNS no",
                    "AcceptEnv LANG LC_*",
                    "Subsystem sftp internal-sftp",
                    "LogLevel ERROR",
                    f"SetEnv {setenv}",
                    *self.sshd_options,
                    "",
                ]
            )
        )

    # ------------------------------------------------------------------ keys
    @property
    def host_key_pub(self) -> str:
        """The public host key line ("ssh-ed25519 AAAA... comment")."""
        return self.host_key_path.with_name(self.host_key_path.name + ".pub").read_text().strip()

    def _host_key_files(self) -> list[Path]:
        return [self.host_key_path, self.host_key_path.with_name(self.host_key_path.name + ".pub")]

    def known_hosts_line(self) -> str:
        kind, blob = self.host_key_pub.split()[:2]
        return f"[{self.addr}]:{self.port} {kind} {blob}"

    # ------------------------------------------------------------------ lifecycle
    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self, timeout: float = 10.0) -> None:
        """Start sshd (same host key, same port once chosen); no-op if running."""
        if self.running:
            return
        last_err = ""
        for attempt in range(3):
            if not self.port or attempt:
                self.port = free_port(self.addr)
            self._spawn()
            try:
                self.wait_ready(timeout)
                return
            except HostStartError as e:
                last_err = str(e)
                self._kill_listener()
                if "Address already in use" not in last_err:
                    break
        raise HostStartError(last_err)

    def _spawn(self) -> None:
        if os.geteuid() == 0:
            os.makedirs("/run/sshd", exist_ok=True)  # sshd's privilege separation dir
        self._write_sshd_config()
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [SSHD, "-D", "-e", "-f", str(self.config_path)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                preexec_fn=procs.die_with_parent_preexec(),
            )

    def wait_ready(self, timeout: float = 10.0) -> None:
        """Poll until sshd sends its banner; raise HostStartError with its log if not."""
        deadline = time.monotonic() + timeout
        while True:
            if self.proc is None or self.proc.poll() is not None:
                break
            with (
                contextlib.suppress(OSError),
                socket.create_connection((self.addr, self.port), timeout=0.5) as s,
            ):
                if s.recv(64).startswith(b"SSH-"):
                    s.sendall(b"SSH-2.0-sparktui-probe\r\n")  # polite: quiet sshd log
                    return
            if time.monotonic() > deadline:
                break
            time.sleep(0.02)
        log = self.log_path.read_text(errors="replace")[-2000:]
        rc = None if self.proc is None else self.proc.poll()
        raise HostStartError(
            f"sshd for {self.name} on {self.addr}:{self.port} did not come up (rc={rc}):\n{log}"
        )

    def _kill_listener(self, connections: bool = True) -> None:
        if self.proc is None:
            return
        pids = [self.proc.pid]
        if connections:
            pids += procs.descendants(self.proc.pid)
        else:  # connections live on; remember them so that stop() can end them
            self._orphans += [(p, procs.start_time(p)) for p in procs.descendants(self.proc.pid)]
        procs.signal_pids(pids, signal.SIGKILL)
        procs.signal_pids(pids, signal.SIGCONT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(5)
        procs.wait_dead(pids, 5)
        self._stopped = []

    def kill(self, connections: bool = True) -> None:
        """Stop sshd: new connections are refused. With connections=True (default) the
        established SSH connections (and their sessions' processes) die too, as when a
        node goes away; with False only the listener stops (like `systemctl stop ssh`)."""
        self.cluster.broken = True
        self._kill_listener(connections)
        self.proc = None

    def hang(self) -> None:
        """SIGSTOP sshd and all its descendants: TCP connects succeed, nothing answers."""
        self.cluster.broken = True
        if self.proc is not None:
            self._stopped = procs.signal_tree(self.proc.pid, signal.SIGSTOP)

    def resume(self) -> None:
        if self.proc is not None:
            procs.signal_pids(self._stopped, signal.SIGCONT)
            procs.signal_tree(self.proc.pid, signal.SIGCONT)
        self._stopped = []

    def reconfigure(self, *options: str) -> None:
        """Restart sshd with these sshd_config lines added (``AllowStreamLocalForwarding
        no``, say): a fault of the node's own, so its cluster is not lent again."""
        self.kill()
        self.sshd_options = list(options)
        self.start()

    def rotate_host_key(self, kind: str = "ed25519") -> None:
        """Restart sshd with a fresh host key of type kind (ssh-keygen -t), its only one."""
        self.kill()
        keygen(self.host_key_path, f"{self.name}-host-rotated", kind)
        self.start()

    def processes(self, pattern: str = "") -> list[tuple[int, str]]:
        """(pid, cmdline) of live processes started on this node (through its sshd, its
        containers, its tmux server) whose command line matches the regex pattern.
        All nodes share this machine's process table: use this (or the node-scoped
        pgrep/pkill stand-ins over SSH) rather than a machine-wide pgrep."""
        rx = re.compile(pattern)
        out = []
        for pid in procs.pids_with_env("SPARKTUI_NODE_STATE", str(self.state_dir)):
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if procs.is_alive(pid) and rx.search(cmd.strip()):
                out.append((pid, cmd.strip()))
        return out

    def run_standin(self, prog: str, *args: str, timeout: float = 30, **kw: Any):
        """Run a stand-in (docker, nvidia-smi, sudo) locally with this node's env,
        e.g. to pre-start a container as if left over from an earlier session."""
        env = {**os.environ, **self.env}
        return subprocess.run(
            [str(self.cluster.bin_dir / prog), *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=self.home,
            **kw,
        )

    # ------------------------------------------------------------------ cleanup
    def stop_workloads(self) -> None:
        """Remove this node's containers, kill its tmux server and its processes."""
        self.resume()
        self.remove_containers()
        if shutil.which("tmux"):
            subprocess.run(
                ["tmux", "-L", "default", "kill-server"],
                env={**os.environ, "TMUX_TMPDIR": str(self.state_dir / "tmux")},
                capture_output=True,
                stdin=subprocess.DEVNULL,
                timeout=10,
                check=False,
            )
        procs.kill_env_matching("SPARKTUI_NODE_STATE", str(self.state_dir))

    def _kill_orphans(self) -> None:
        orphans = [p for p, t in self._orphans if procs.start_time(p) == t]
        procs.signal_pids(orphans, signal.SIGKILL)
        self._orphans = []

    def stop(self) -> None:
        self.kill(connections=True)
        self._kill_orphans()
        self.stop_workloads()


__all__ = ["SSHD", "HostStartError", "Node", "keygen"]
