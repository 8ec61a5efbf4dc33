"""Real Slurm on a test cluster: Debian's slurm-wlm (one slurmctld, one slurmd per node)
with munge, started only when a test asks (``cluster.start_slurm()``).

What this machine needs, found by trying (tests/hosts/README.md says more):
- Debian's slurmd runs as the node ``-N`` names (no ``--enable-multiple-slurmd`` build
  needed): each node has its own ``Port=`` and ``NodeAddr=`` (the node's address), so
  slurmctld reaches node k at ``127.A.B.1k:port``.
- Each daemon runs in a UTS and mount namespace of its own (``unshare``): its host name
  is the node's (``hostname`` in a step says ``node2``, as on a real node), and a hosts
  file of the bed's own is bound over ``/etc/hosts`` there, naming every node and the
  controller. slurmctld binds its own address (``NoCtldInAddrAny``: what its host name
  resolves to). slurmd and srun bind every address, Slurm's default, on ports of their
  own: with ``NoInAddrAny`` an srun inside a job binds its node's address, and the
  slurmd it asks to start a step answers the connection's source, which the kernel picks
  as 127.0.0.1 on a shared loopback; the step's I/O connection is then refused.
- Steps reach their node's own dockerd through a ``TaskProlog`` (run by slurmstepd on
  each node before each task, the batch script included): it exports the node's session
  environment (``Node.env``: ``DOCKER_HOST``, ``PATH`` with the node's stand-ins,
  ``SPARKTUI_NODE_STATE``...) by ``$SLURMD_NODENAME``. Without it a task would carry the
  submitter's environment (sbatch's ``--export=ALL``), so every node's steps would reach
  the submit host's dockerd.
- No cgroups (``proctrack/linuxproc``, ``task/none``), no accounting.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shlex
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from . import procs

SLURMCTLD = "/usr/sbin/slurmctld"
SLURMD = "/usr/sbin/slurmd"
MUNGED = "/usr/sbin/munged"
CLIENTS = ("sbatch", "squeue", "scancel", "srun", "sinfo", "scontrol")
UNSHARE = "/usr/bin/unshare"
ENV_KEY = "SPARKTEST_SLURM"  # every process of a bed (daemons, steps, tasks): reaping
READY_SECONDS = 120.0  # bounds a failed start only: a start polls until ready
CONTROLLER = "slurmctld"  # the controller's host name (its namespace's)

# In a namespace of its own: the host name, the bed's hosts file, then the daemon.
IN_NAMESPACE = 'hostname "$0" && mount --bind "$1" /etc/hosts && shift && exec "$@"'


class SlurmStartError(RuntimeError):
    pass


def free_port(addr: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((addr, 0))
        return s.getsockname()[1]


def require_slurm() -> None:
    """pytest.skip without slurm-wlm and munge (pytest.fail under CI=true)."""
    import shutil

    missing = [p for p in (SLURMCTLD, SLURMD, MUNGED, UNSHARE) if not os.path.exists(p)]
    missing += [c for c in CLIENTS if shutil.which(c) is None]
    if not missing:
        return
    import pytest

    reason = (f"Slurm not installed ({', '.join(missing)} missing): "
              "apt-get install slurmctld slurmd slurm-client munge")
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


def conf_path(cluster_root: Path) -> Path:
    """Where a cluster's slurm.conf is (every node's ``SLURM_CONF``, started or not)."""
    return Path(cluster_root) / "slurm" / "slurm.conf"


class SlurmBed:
    """munged, slurmctld and one slurmd per node of ``cluster``; ``partition`` holds them all."""

    def __init__(self, cluster: Any, partition: str = "spark", kill_wait: int = 30) -> None:
        require_slurm()
        self.cluster = cluster
        self.partition = partition
        # seconds between a step's TERM and its KILL: long, so that a trap's ``docker rm``
        # finishes on a loaded machine; a test of the KILL itself asks for less
        self.kill_wait = kill_wait
        self.root = conf_path(cluster.root).parent
        self.conf = conf_path(cluster.root)
        _, a, b, _ = cluster.nodes[0].addr.split(".")
        self.ctl_addr = f"127.{a}.{b}.10"  # never a node's: their daemons are .11 and up
        self.procs: dict[str, subprocess.Popen] = {}

    # ------------------------------------------------------------------ client side
    @property
    def env(self) -> dict[str, str]:
        """What a Slurm client needs (munge's socket is named in slurm.conf)."""
        return {"SLURM_CONF": str(self.conf)}

    def run(self, *argv: str, timeout: float = 60, **kw: Any) -> subprocess.CompletedProcess:
        """A Slurm client (``sbatch``, ``squeue``...) on this machine, against this bed."""
        env = {**os.environ, **self.env, **kw.pop("env", {})}
        return subprocess.run(list(argv), env=env, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL, **kw)

    def node_states(self) -> dict[str, str]:
        """Each node's state as ``sinfo`` says it (``idle``, ``allocated``, ``down*``...)."""
        got = self.run("sinfo", "-h", "-N", "-p", self.partition, "-o", "%N %T")
        return dict(line.split() for line in got.stdout.splitlines() if line.strip())

    def jobs(self) -> dict[str, dict[str, str]]:
        """The queue by job id: state, reason, node list and name (``squeue``)."""
        got = self.run("squeue", "-h", "-o", "%i|%T|%r|%N|%j")
        out = {}
        for line in got.stdout.splitlines():
            job, state, reason, nodes, name = line.split("|", 4)
            out[job] = {"state": state, "reason": reason, "nodes": nodes, "name": name}
        return out

    # ------------------------------------------------------------------ start
    def start(self) -> SlurmBed:
        """Start everything and poll until every node is idle in the partition; a port
        someone took meanwhile is a failed start, tried again on other ports."""
        last: SlurmStartError | None = None
        for _attempt in range(3):
            try:
                self._start_once()
                return self
            except SlurmStartError as e:
                last = e
                self.stop()
        raise last or SlurmStartError("Slurm did not start")

    def _start_once(self) -> None:
        for d in ("munge", "state", "log", "run", "spool", "out"):
            (self.root / d).mkdir(parents=True, exist_ok=True)
        self._write_files()
        self._spawn("munged", [MUNGED, "-F", "-f", f"--socket={self.root / 'munge' / 'sock'}",
                               f"--key-file={self.root / 'munge' / 'key'}",
                               f"--log-file={self.root / 'log' / 'munged.log'}",
                               f"--pid-file={self.root / 'run' / 'munged.pid'}",
                               f"--seed-file={self.root / 'munge' / 'seed'}"])
        self._wait("munged", lambda: (self.root / "munge" / "sock").exists())
        self._spawn("slurmctld", [SLURMCTLD, "-D", "-c"], CONTROLLER)
        self._wait("slurmctld", lambda: "is UP" in self.run("scontrol", "ping").stdout)
        for node in self.cluster.nodes:
            self._spawn(node.name, [SLURMD, "-D", "-N", node.name], node.name)
        names = {node.name for node in self.cluster.nodes}
        self._wait("slurmd", lambda: self.node_states() == dict.fromkeys(names, "idle"))

    def _write_files(self) -> None:
        key = self.root / "munge" / "key"
        if not key.exists():
            key.write_bytes(secrets.token_bytes(1024))
        key.chmod(0o600)
        (self.root / "munge").chmod(0o755)  # its socket is for every local user
        hosts = ["127.0.0.1 localhost", f"{self.ctl_addr} {CONTROLLER}"]
        hosts += [f"{node.addr} {node.name}" for node in self.cluster.nodes]
        (self.root / "hosts").write_text("\n".join(hosts) + "\n")
        prolog = self.root / "task-prolog"
        prolog.write_text(self.task_prolog())
        prolog.chmod(0o755)
        # A colleague's job runs as another user (``sbatch --uid``), and slurmstepd runs the
        # TaskProlog as the job's user: the folders on its way may be passed, not listed.
        for folder in (self.root, self.root.parent):
            folder.chmod(0o711)
        self.conf.write_text(self.slurm_conf())

    def task_prolog(self) -> str:
        """The node's session environment for each task, by the node slurmstepd is on."""
        lines = ["#!/bin/sh", "# the node's own environment (tests/hosts/slurm.py)",
                 'case "$SLURMD_NODENAME" in']
        for node in self.cluster.nodes:
            env = {**node.env, ENV_KEY: str(self.root)}
            # TaskProlog's grammar: one `export NAME=value` a line, the value verbatim
            echoes = "; ".join(f"echo {shlex.quote(f'export {k}={v}')}" for k, v in env.items())
            lines.append(f"{node.name}) {echoes} ;;")
        return "\n".join([*lines, "esac", ""])

    def slurm_conf(self) -> str:
        r = self.root
        ctl_port = free_port(self.ctl_addr)
        lines = [
            "# a sparktui test bed (tests/hosts/slurm.py)",
            "ClusterName=sparktest",
            f"SlurmctldHost={CONTROLLER}({self.ctl_addr})",
            f"SlurmctldPort={ctl_port}",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={r / 'munge' / 'sock'}",
            "SlurmUser=root",
            "SlurmdUser=root",
            f"StateSaveLocation={r / 'state'}",
            f"SlurmdSpoolDir={r / 'spool' / '%n'}",
            f"SlurmctldPidFile={r / 'run' / 'slurmctld.pid'}",
            f"SlurmdPidFile={r / 'run' / 'slurmd-%n.pid'}",
            f"SlurmctldLogFile={r / 'log' / 'slurmctld.log'}",
            f"SlurmdLogFile={r / 'log' / 'slurmd-%n.log'}",
            f"TaskProlog={r / 'task-prolog'}",
            "CommunicationParameters=NoCtldInAddrAny",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "SelectType=select/linear",
            "MpiDefault=none",
            "SwitchType=switch/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/none",
            "SchedulerType=sched/backfill",
            "ReturnToService=2",
            "SlurmdTimeout=30",
            "SlurmctldTimeout=30",
            "InactiveLimit=0",
            f"KillWait={self.kill_wait}",
            "MinJobAge=60",
            "MailProg=/bin/true",
        ]
        for node in self.cluster.nodes:
            lines.append(f"NodeName={node.name} NodeAddr={node.addr} NodeHostname={node.name} "
                         f"Port={free_port('0.0.0.0')} CPUs=1 State=UNKNOWN")
        names = ",".join(node.name for node in self.cluster.nodes)
        lines.append(f"PartitionName={self.partition} Nodes={names} Default=YES "
                     "MaxTime=INFINITE State=UP")
        return "\n".join(lines) + "\n"

    def _spawn(self, name: str, argv: list[str], hostname: str | None = None) -> None:
        if hostname is not None:
            argv = [UNSHARE, "--uts", "--mount", "sh", "-c", IN_NAMESPACE, hostname,
                    str(self.root / "hosts"), *argv]
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("SLURM", "SPARKTUI_NODE", "DOCKER_HOST"))}
        env.update({**self.env, ENV_KEY: str(self.root)})
        with open(self.root / "log" / f"{name}.out", "ab") as log:
            self.procs[name] = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env,
                cwd=self.root, preexec_fn=procs.die_with_parent_preexec())

    def _wait(self, what: str, ready: Any) -> None:
        deadline = time.monotonic() + READY_SECONDS
        while not ready():
            dead = [n for n, p in self.procs.items() if p.poll() is not None]
            if dead or time.monotonic() > deadline:
                raise SlurmStartError(f"{what} not ready (dead: {dead}):\n{self.logs()}")
            time.sleep(0.05)

    def logs(self, tail: int = 1500) -> str:
        parts = []
        for path in sorted((self.root / "log").glob("*")):
            text = path.read_text(errors="replace")[-tail:]
            parts.append(f"--- {path.name}\n{text}")
        return "\n".join(parts)

    # ------------------------------------------------------------------ stop
    def stop(self) -> None:
        """Every process of the bed killed: daemons, slurmstepds, their tasks, munged (a
        test bed keeps no state: the next start clears slurmctld's)."""
        reap(self.root)
        for proc in self.procs.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(10)
        self.procs.clear()


def reap(root: Path) -> None:
    """Kill whatever of a bed at ``root`` still runs (a dead run's daemons, slurmstepds
    that outlive their slurmd, the tasks of their steps)."""
    procs.kill_env_matching(ENV_KEY, str(root))


__all__ = ["SlurmBed", "SlurmStartError", "conf_path", "reap", "require_slurm"]
