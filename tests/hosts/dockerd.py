"""A real Docker engine per simulated node: Debian's dockerd, one per node, on its own
socket, data root, exec root, bridge and address.

Daemons are pooled for the test run: starting one and importing the test image costs
about a second, so a cluster borrows started daemons and gives them back clean (no
containers, the default image tags). Each daemon's address is fixed at its start
(``--ip``: where ``-p`` publishes), so a node that gets daemon k gets its address too.

What this machine needs, found by trying (tests/hosts/README.md says more):
- ``--gpus all`` needs an ``nvidia-container-runtime-hook`` on dockerd's PATH at start;
  a stub that exits 0 is enough (there is no GPU); it fails when the node's gpu.json
  says ``fail`` (``GPU_HOOK``), as the real one does on a node without a working driver.
- ``--ulimit memlock=-1`` cannot be granted in this sandbox, so containers run under
  ``RUNTIME_WRAPPER`` (oci_runtime.py), the test bed's concession: see there.
- ``--iptables=false``; each daemon gets its own bridge (an island: no uplink, no NAT,
  a gateway address nobody holds), and host-network containers share this machine's
  network, so the test engine binds its node's own loopback address.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import random
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from . import claims, procs
from .dockerapi import DockerApi, DockerApiError, normalize_ref
from .seed import ImageSeed
from .testimage import build as image_build
from .testimage import real_vllm
from .testimage import router as router_image

DOCKERD = "/usr/sbin/dockerd"
UNSHARE = "/usr/bin/unshare"
BASE = "sparktest/base:latest"
DEAD_PROXY = "http://127.0.0.1:9"  # discard port: nothing listens

# Present on every node unless a test asks for others: the refs the tests, the example
# recipes and the service kinds use. Like NVIDIA's images, most run the command they are
# given; those whose real image has an entrypoint sparktui relies on get it
# (``variant_of``, testimage/build.py).
DEFAULT_IMAGES = (
    "vllm:test", "nvcr.io/nvidia/vllm:25.10-py3", "lmsysorg/sglang:spark", "busybox:1",
    "img:1", "nvcr.io/nvidia/pytorch:25.09-py3", "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1",
    "python:3.12-slim", "quay.io/coreos/etcd:v3.5.17", "nats:2.10-alpine", "nats:2.10",
    "nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.1.3-ubuntu22.04", "exp:1", "dyn:2",
    "nvcr.io/nvidia/k8s/dcgm-exporter:4",
    "quay.io/prometheus/node-exporter:v1.8.2", "prom/node-exporter:v1.8.2",
    "vllm/vllm-openai:v0.33.0",
)

RUNTIME_WRAPPER = """#!/bin/sh
# OCI runtime of a test daemon: runc, a create or an exec through oci_runtime.py first
# (the test bed's one concession: see there). The shim calls the runtime for every
# state, start, kill and delete too: those go straight to runc (a shell starts in a
# millisecond, Python in a tenth of a second on a loaded machine).
for arg in "$@"; do
    case "$arg" in create|exec) exec {python} -I {script} {node} "$@";; esac
done
exec /usr/sbin/runc "$@"
"""
OCI_RUNTIME = Path(__file__).resolve().parent / "oci_runtime.py"
GPU_HOOK = Path(__file__).resolve().parent / "gpu_hook.py"  # the stub NVIDIA hook


class DockerStartError(RuntimeError):
    pass


def require_docker() -> None:
    """pytest.skip without dockerd/root (pytest.fail under CI=true)."""
    missing = [p for p in (DOCKERD, "/usr/sbin/runc") if not os.path.exists(p)]
    problem = None
    if missing:
        problem = f"Docker engine not installed ({', '.join(missing)}): apt-get install docker.io"
    elif os.geteuid() != 0:
        problem = "the test daemons (dockerd) need root"
    if problem is None:
        return
    import pytest

    if os.environ.get("CI") == "true":
        pytest.fail(problem)
    pytest.skip(problem)


class TestDaemon:
    """One dockerd; ``node`` is the simulated node that has it now, if any."""

    __test__ = False

    def __init__(self, pool: DaemonPool, slot: int) -> None:
        self.pool, self.slot = pool, slot
        self.root = pool.root / f"d{slot}"
        a, b = pool.block
        self.addr = f"127.{a}.{b}.{10 + slot}"
        self.bridge = f"spk{pool.tag}{slot}"
        rng = random.SystemRandom()  # the bridge's /24, claimed on this machine
        self.subnet = claims.claim("subnet",
                                   lambda: f"172.{rng.randint(16, 31)}.{rng.randint(0, 253)}")
        self.socket = self.root / "docker.sock"
        self.api = DockerApi(self.socket)
        self.proc: subprocess.Popen | None = None
        self.node: Any = None
        self.gpu_hook = True  # the stub NVIDIA hook on dockerd's PATH (set_gpu_hook)

    @property
    def host(self) -> str:
        return f"unix://{self.socket}"

    # -- lifecycle -------------------------------------------------------------------
    def start(self) -> None:
        self.seeded = self.pool.seed.plant(self.root / "data")
        for d in ("data", "exec", "bin"):
            (self.root / d).mkdir(parents=True, exist_ok=True)
        wrapper = self.root / "runtime"
        wrapper.write_text(RUNTIME_WRAPPER.format(
            python=shlex.quote(sys.executable), script=shlex.quote(str(OCI_RUNTIME)),
            node=shlex.quote(str(self.root / "node.json"))))
        wrapper.chmod(0o755)
        self._bridge_up()
        self.spawn()

    def spawn(self) -> None:
        hook = self.root / "bin" / "nvidia-container-runtime-hook"
        if self.gpu_hook:
            hook.write_text("#!/bin/sh\nexec {} -I {} {}\n".format(*map(shlex.quote, (
                sys.executable, str(GPU_HOOK), str(self.root / "node.json")))))
            hook.chmod(0o755)
        else:
            hook.unlink(missing_ok=True)
        argv = [
            DOCKERD, "--data-root", str(self.root / "data"), "--exec-root",
            str(self.root / "exec"), "-H", self.host, "--pidfile", str(self.root / "docker.pid"),
            "--iptables=false", "--ip-forward=false", "--ip-masq=false",
            f"--bridge={self.bridge}", f"--ip={self.addr}",
            f"--default-gateway={self.subnet}.254",
            "--add-runtime", f"sparktest={self.root / 'runtime'}",
            "--default-runtime=sparktest", "--storage-driver=overlay2",
            "--log-opt", "max-size=64m", "--log-opt", "max-file=2", "--shutdown-timeout=2",
        ]  # fmt: skip
        # A pull (of an image a test did not provide) goes to a dead loopback proxy: it
        # fails at once, and no lookup or packet leaves this machine.
        env = {**os.environ, "PATH": f"{self.root / 'bin'}:/usr/sbin:/usr/bin:/sbin:/bin",
               "HTTP_PROXY": DEAD_PROXY, "HTTPS_PROXY": DEAD_PROXY, "NO_PROXY": ""}
        env.pop("DOCKER_HOST", None)
        self.socket.unlink(missing_ok=True)
        # A containerd killed with its dockerd may linger as a zombie whose pid the new
        # dockerd would take for a live containerd and wait on.
        (self.root / "exec" / "containerd" / "containerd.pid").unlink(missing_ok=True)
        # Its own mount namespace in which / is a shared mount, as systemd makes it on a
        # real node (rslave binds such as node-exporter's -v /:/host need it); this
        # machine's own / stays as it is.
        argv = [UNSHARE, "--mount", "--propagation", "shared", *argv]
        with open(self.root / "dockerd.log", "ab") as log:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                         env=env, preexec_fn=procs.die_with_parent_preexec())
        deadline = time.monotonic() + 30
        while not self.api.ping():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                tail = (self.root / "dockerd.log").read_text(errors="replace")[-1500:]
                raise DockerStartError(f"dockerd {self.slot} did not come up:\n{tail}")
            time.sleep(0.05)

    def _bridge_up(self) -> None:
        ip = shutil.which("ip") or "/usr/sbin/ip"
        subprocess.run([ip, "link", "del", self.bridge], capture_output=True, check=False)
        for argv in (["link", "add", "name", self.bridge, "type", "bridge"],
                     ["addr", "add", f"{self.subnet}.1/24", "dev", self.bridge],
                     ["link", "set", self.bridge, "up"]):
            got = subprocess.run([ip, *argv], capture_output=True, text=True, check=False)
            if got.returncode:
                raise DockerStartError(f"ip {' '.join(argv)}: {got.stderr.strip()}")

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """The daemon dies (SIGKILL, its containerd with it; containers' shims live on, as
        after a crash): the socket stays, nothing answers on it."""
        if self.proc is None:
            return
        tree = [self.proc.pid] + [p for p in procs.descendants(self.proc.pid)
                                  if b"containerd-shim" not in procs.cmdline(p)]
        procs.signal_pids(tree, signal.SIGKILL)
        self.proc.wait(10)
        procs.wait_dead(tree, 10)

    def terminate(self) -> None:
        """SIGTERM: the daemon starts its shutdown (``stop`` waits for it)."""
        if self.running and self.proc is not None:
            self.proc.send_signal(signal.SIGTERM)

    def set_gpu_hook(self, present: bool) -> None:
        """Restart the daemon with or without the stub NVIDIA hook on its PATH: without
        it, ``--gpus all`` fails as on a node without the NVIDIA container toolkit
        (dockerd finds the hook at its start only)."""
        self.kill()
        self.gpu_hook = present
        self.spawn()

    def stop(self) -> None:
        self.terminate()
        if self.running and self.proc is not None:
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        ip = shutil.which("ip") or "/usr/sbin/ip"
        subprocess.run([ip, "link", "del", self.bridge], capture_output=True, check=False)

    # -- images ------------------------------------------------------------------------
    def load_images(self) -> None:
        if not self.seeded:
            self.api.load(self.pool.archive())
            self.pool.seed.keep(self.root / "data")
        self.defaults = {normalize_ref(r): self.api.image_id(self.variant_of(r))
                         for r in DEFAULT_IMAGES}
        self.set_images(None)

    @staticmethod
    def variant_of(ref: str) -> str:
        """Which test image plays ``ref``: one with the real image's entrypoint."""
        for needle, image in (("vllm/vllm-openai", "vllm"), ("node-exporter", "node-exporter"),
                              ("dcgm-exporter", "dcgm-exporter"), ("nats:", "nats")):
            if needle in ref:
                return f"sparktest/{image}:latest"
        return BASE

    def add_image(self, ref: str, variant: str | None = None) -> str:
        """Tag ``ref`` here; ``variant`` makes an image of its own (another image ID)."""
        source = self.variant_of(ref)
        if variant is not None:
            source = f"sparktest/variant-{variant}:latest"
            if self.api.image_id(source) is None:
                self.api.build(source, f"FROM {self.variant_of(ref)}\n"
                                       f"LABEL sparktest.variant={json.dumps(variant)}\n")
        self.api.tag(source, ref)
        return self.api.image_id(ref) or ""

    def set_images(self, refs: list[str] | None) -> None:
        """Exactly these refs besides the test bed's own (None: the default set)."""
        wanted = ({normalize_ref(r): self.api.image_id(self.variant_of(r)) for r in refs}
                  if refs is not None else dict(self.defaults))
        have = {r: i for r, i in self.api.tags().items() if not r.startswith("sparktest/")}
        for ref, image in have.items():
            if wanted.get(ref) != image:
                self.api.untag(ref)
        for ref, image in wanted.items():
            if have.get(ref) != image:
                self.api.tag(self.variant_of(ref), ref)

    # -- belonging to a node -------------------------------------------------------------
    def assign(self, node: Any) -> None:
        self.node = node
        info = {"addr": node.addr, "name": node.name, "state": str(node.state_dir),
                "daemon": str(self.root), "mounts": router_image.mounts() + real_vllm.mounts()}
        (self.root / "node.json").write_text(json.dumps(info))

    def reset(self) -> None:
        """Up, no containers, none of their processes left (images: the caller's)."""
        if not self.running:
            self.spawn()
        for item in self.api.containers():
            with contextlib.suppress(DockerApiError):
                self.api.remove(item["Id"])
        procs.kill_env_matching("SPARKTEST_DOCKERD", str(self.root))

    def clean(self) -> None:
        """No containers, default images, not anyone's: ready for the next cluster."""
        if not self.gpu_hook:
            self.set_gpu_hook(True)
        self.reset()
        self.set_images(None)
        (self.root / "node.json").unlink(missing_ok=True)
        self.node = None


class DaemonPool:
    """Every test daemon of this test run; started on demand, stopped at exit."""

    def __init__(self) -> None:
        rng = random.SystemRandom()
        # Claimed on this machine (claims.py): parallel runs never share a loopback
        # block (so no sshd port or dockerd --ip either) or a bridge name.
        block = claims.claim("block", lambda: f"{rng.randint(100, 250)}.{rng.randint(1, 250)}")
        a, b = block.split(".")
        self.block = (int(a), int(b))
        self.tag = claims.claim("bridges", lambda: f"{rng.randrange(16**3):03x}")
        self.root = Path(f"/tmp/sparktui-dockerd-{os.getpid()}-{self.tag}")
        self.root.mkdir()
        procs.write_owner(self.root)
        self.daemons: list[TestDaemon] = []
        self.free: list[TestDaemon] = []
        self._archive: bytes | None = None
        self.seed = ImageSeed(self.root / "seed")  # the first load's images (seed.py)
        atexit.register(self.close)

    def archive(self) -> bytes:
        """The test images, read once per run: every daemon gets the same image IDs,
        even if a source file (and so the cached archive) changes meanwhile."""
        if self._archive is None:
            self._archive = image_build.image_archive().read_bytes()
        return self._archive

    def acquire(self, n: int) -> list[TestDaemon]:
        got = [self.free.pop(0) for _ in range(min(n, len(self.free)))]
        new = [TestDaemon(self, len(self.daemons) + i + 1) for i in range(n - len(got))]
        self.daemons += new
        for daemon in new:
            daemon.start()
        for daemon in new:
            daemon.load_images()
        return got + new

    def release(self, daemons: list[TestDaemon]) -> None:
        for daemon in daemons:
            try:
                daemon.clean()
            except (OSError, DockerApiError, DockerStartError):
                daemon.stop()  # broken: not lent again
                continue
            self.free.append(daemon)
        self.free.sort(key=lambda d: d.slot)

    def close(self) -> None:
        """Every daemon's containers removed, then all of them told to stop at once and
        waited for: a daemon takes about a second to shut down, and one after the other
        the pools of six workers kept a run going for 20 s after its last test."""
        for daemon in self.daemons:
            with contextlib.suppress(Exception):
                for item in daemon.api.containers():
                    daemon.api.remove(item["Id"])
        for daemon in self.daemons:
            with contextlib.suppress(Exception):
                daemon.terminate()
        for daemon in self.daemons:
            with contextlib.suppress(Exception):
                daemon.stop()
            procs.kill_env_matching("SPARKTEST_DOCKERD", str(daemon.root))
        remove_tree(self.root)


_pool: DaemonPool | None = None


def pool() -> DaemonPool:
    global _pool
    if _pool is None:
        reap_stale_pools()
        _pool = DaemonPool()
    return _pool


def remove_tree(root: Path) -> None:
    """rm -rf, after unmounting what a dead daemon left mounted below ``root``."""
    with contextlib.suppress(OSError):
        mounts = [line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()]
        for mount in sorted((m for m in mounts if m.startswith(str(root) + "/")), reverse=True):
            subprocess.run(["umount", "-l", mount], capture_output=True, check=False)
    shutil.rmtree(root, ignore_errors=True)


def reap_stale_pools() -> None:
    """Stop daemons (and their containers) of test runs that died without cleaning up."""
    for root in procs.orphaned_roots("sparktui-dockerd-*"):
        for pid in procs.pids_with_cmdline(str(root)):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        for d in root.glob("d*"):
            procs.kill_env_matching("SPARKTEST_DOCKERD", str(d))
        tag = root.name.rsplit("-", 1)[-1]
        with claims.held("bridges", tag) as ours:
            # not ours: a live run holds the tag again and has remade its bridges
            for link in Path("/sys/class/net").glob(f"spk{tag}*") if ours else ():
                subprocess.run(["ip", "link", "del", link.name], capture_output=True,
                               check=False)
        remove_tree(root)
