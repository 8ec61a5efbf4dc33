"""``sparktui pull`` of an image to 4 nodes against each node pulling it from the registry
itself, with the registry behind a rate-limited link.

    python benchmarks/bench_pull_image.py [--mb 256] [--rate 25] [--runs 1]

A real registry (Debian's ``docker-registry``, the CNCF distribution server) on loopback
stands behind a TCP proxy written here whose downloads share one token bucket of
``--rate`` MB/s: it stands in for the site's internet link, the bottleneck a Spark
cluster pulls a 20 GB image through. The test image is ``--mb`` MB of random bytes (no
compression helps either side), ``docker import``ed on a test node and pushed to the
registry past the proxy, then removed from every node. Each run times

- every node's ``docker pull`` at once, all through the limited link, and
- ``sparktui pull RECIPE --image-only --yes``: the head pulls it through the link once, then copies
  go node to node (``docker save | ssh NODE docker load``) in doubling rounds,

and prints both walls and their ratio (goal: at most 0.6x). The nodes' fabric here is
loopback on a machine of two cores: a copy costs CPU (save, ssh's cipher, load) that a
Spark's 200G link and cores do not feel, so the ratio here is the pessimistic one. Needs
root, sshd, dockerd and docker-registry (the test bed's, tests/hosts).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))  # this checkout's sparktui, whatever the venv installed

from hosts.cluster import TestCluster  # noqa: E402
from registry_support import CONFIG, PROGRAM  # noqa: E402

from sparktui.cli import main  # noqa: E402

RECIPE = """engine = "vllm"
docker_image = "{image}"
model = "org/toy"
port = 30093
required_nodes = 4
tensor_parallel_size = 4
entrypoint = ["vllm", "serve"]
"""


class Bucket:
    """One token bucket for every connection: the link's rate is shared, as a site's is."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.tokens = 0.0
        self.stamp = time.monotonic()
        self.lock = threading.Lock()

    def take(self, n: int) -> None:
        while True:
            with self.lock:
                now = time.monotonic()
                self.tokens = min(self.rate / 4, self.tokens + (now - self.stamp) * self.rate)
                self.stamp = now
                if self.tokens >= n:
                    self.tokens -= n
                    return
                wait = (n - self.tokens) / self.rate
            time.sleep(min(wait, 0.05))


class LimitedProxy:
    """A TCP proxy on 127.0.0.1: what the registry sends goes through ``bucket``."""

    def __init__(self, target: tuple[str, int], bucket: Bucket) -> None:
        self.target, self.bucket = target, bucket
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            threading.Thread(target=self._pipe, args=(client, upstream, None),
                             daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, self.bucket),
                             daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket, bucket: Bucket | None) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(16384):
                if bucket is not None:
                    bucket.take(len(data))
                dst.sendall(data)
        for end in (src, dst):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.server.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_registry(folder: Path) -> tuple[subprocess.Popen, str]:
    addr = f"127.0.0.1:{free_port()}"
    config = folder / "config.yml"
    config.write_text(CONFIG.format(root=folder / "storage", addr=addr))
    proc = subprocess.Popen([PROGRAM, "serve", str(config)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", int(addr.split(":")[1])), 0.2).close()
            return proc, addr
        except OSError:
            time.sleep(0.05)
    raise SystemExit("docker-registry did not start")


def make_image(node, folder: Path, ref: str, mb: int) -> None:
    data = folder / "data.bin"
    with data.open("wb") as out:
        for _ in range(mb):
            out.write(os.urandom(1 << 20))
    archive = folder / "rootfs.tar"
    with tarfile.open(archive, "w") as tar:
        tar.add(data, arcname="data.bin")
    data.unlink()
    done = node.docker("import", str(archive), ref, timeout=600)
    assert done.returncode == 0, done.stderr
    archive.unlink()


def drop(nodes, ref: str) -> None:
    """The image gone from every node, its layers too (the next run fetches them all)."""
    for node in nodes:
        image = node.image_id(ref)
        if image:
            node.docker("rmi", "-f", image, timeout=120)


def pull_everywhere(nodes, ref: str) -> float:
    started = time.perf_counter()
    procs = [subprocess.Popen(["docker", "pull", "-q", ref], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "DOCKER_HOST": n.daemon.host})
             for n in nodes]
    for proc in procs:
        _out, err = proc.communicate(timeout=3600)
        assert proc.returncode == 0, err
    return time.perf_counter() - started


def sparktui_pull(cli: list[str]) -> float:
    started = time.perf_counter()
    code = main([*cli, "pull", "bench", "--image-only", "--yes"])
    assert code == 0, f"sparktui pull exited {code}"
    return time.perf_counter() - started


def run(mb: int, rate: float, runs: int) -> None:
    with TestCluster(4) as hosts, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "registry").mkdir()
        registry, addr = start_registry(root / "registry")
        proxy = LimitedProxy(("127.0.0.1", int(addr.split(":")[1])), Bucket(rate * 1e6))
        try:
            direct, limited = f"{addr}/bench/img:latest", f"127.0.0.1:{proxy.port}/bench/img:latest"
            nodes = hosts.nodes
            make_image(nodes[-1], root, direct, mb)
            pushed = nodes[-1].docker("push", direct, timeout=1200)
            assert pushed.returncode == 0, pushed.stderr
            drop(nodes, direct)
            config = hosts.write_config(root / "config.toml", prefill_known_hosts=True)
            (root / "recipes" / "bench").mkdir(parents=True)
            (root / "recipes" / "bench" / "recipe.toml").write_text(RECIPE.format(image=limited))
            hosts.trust_nodes()
            cli = ["--config", str(config), "--recipes", str(root / "recipes")]
            each, ours = [], []
            for _ in range(runs):
                each.append(pull_everywhere(nodes, limited))
                print(f"every node docker pull: {each[-1]:.2f} s", file=sys.stderr)
                ids = {n.image_id(limited) for n in nodes}
                assert len(ids) == 1 and None not in ids, ids
                drop(nodes, limited)
                ours.append(sparktui_pull(cli))
                print(f"sparktui pull: {ours[-1]:.2f} s", file=sys.stderr)
                ids = {n.image_id(limited) for n in nodes}
                assert len(ids) == 1 and None not in ids, ids
                drop(nodes, limited)
        finally:
            proxy.close()
            registry.terminate()
            registry.wait(10)
    a, b = statistics.median(each), statistics.median(ours)
    print(f"\nimage of {mb} MB to 4 nodes, registry link {rate:g} MB/s (token bucket), "
          f"{runs} run(s), medians:")
    print(f"  every node docker pull at once   {a:7.2f} s")
    print(f"  sparktui pull (1 pull + copies)  {b:7.2f} s")
    print(f"  ratio sparktui / each pulls      {b / a:7.2f}x   (goal <= 0.6x)")
    print(f"  one pull through the link alone ~ {mb / rate:5.1f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=256, help="image size in MB")
    parser.add_argument("--rate", type=float, default=25.0, help="registry link, MB/s")
    parser.add_argument("--runs", type=int, default=1)
    ns = parser.parse_args()
    run(ns.mb, ns.rate, ns.runs)
