"""A model to 4 nodes: ``pull_model`` (downloaded once, copied node to node) vs ``hf
download`` (huggingface_hub's CLI) on each node at once; checksum verification's share
of the pull; a pull interrupted at about half and resumed.

    python benchmarks/bench_pull_model.py [--mb 80] [--rate-mb 20]

Real parts: 4 sshd test hosts with a dockerd each, olah (tests/hub_support.py) serving a
repo of two random safetensors files (``--mb`` in all, committed to git: each is a
regular file, its blob named by its git sha1), the real huggingface_hub (in the real
vLLM test image for the pull, the vLLM venv's ``hf`` for the baseline), rsync over the
nodes' own ssh. The Hub is reached through a token-bucket TCP proxy (tests/pull_proxy.py)
of ``--rate-mb`` MB/s shared by every connection: it stands in for the site's internet
link, the bottleneck the pull is made for. Each node's fabric address is a proxy too,
unlimited, that counts the bytes copied to it. Needs sshd, dockerd, olah, the vLLM venv.
A smaller model shows the pull's fixed cost (the container's start, SSH round trips, one
copy round per doubling) more than its transfer; the default is 80 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))  # this checkout's sparktui, not an installed one

from hosts.cluster import TestCluster  # noqa: E402
from hosts.testimage import real_vllm  # noqa: E402
from hub_support import Olah  # noqa: E402
from polling import eventually  # noqa: E402
from pull_proxy import HubProxy  # noqa: E402

from sparktui.config.loader import load_config, load_recipe  # noqa: E402
from sparktui.engine.cluster import ClusterEngine  # noqa: E402
from sparktui.engine.progress import ProgressLog  # noqa: E402
from sparktui.engine.pull import model as pull  # noqa: E402
from sparktui.engine.pull.transfer import Transfer  # noqa: E402
from sparktui.engine.remote.transport import argv_command  # noqa: E402
from sparktui.plan.build import build_plan  # noqa: E402

REPO = "bench/pull-model"
HF = real_vllm.VLLM_PYTHON.parent / "hf"


class Bench:
    def __init__(self, hosts: TestCluster, root: Path, olah: Olah, hub: HubProxy):
        self.hosts, self.root, self.hub = hosts, root, hub
        self.fabric: dict[str, HubProxy] = {}
        config = hosts.write_config(root / "config.toml", prefill_known_hosts=True)
        text = config.read_text()
        hosts.trust_nodes()
        for node in hosts.nodes[1:]:  # each target's fabric address: a counting proxy
            address = node.addr.rsplit(".", 1)[0] + f".{240 + node.index}"
            self.fabric[node.name] = HubProxy((node.addr, node.port), listen=(address, node.port))
            text = text.replace(f'ib_ip = "{node.addr}"', f'ib_ip = "{address}"')
            kind, key = node.host_key_pub.split()[:2]
            for source in hosts.nodes:
                with (source.home / ".ssh" / "known_hosts").open("a") as known:
                    known.write(f"[{address}]:{node.port} {kind} {key}\n")
        config.write_text(text)
        self.loaded = load_config(config)
        (root / "recipes" / "m").mkdir(parents=True)
        (root / "recipes" / "m" / "recipe.toml").write_text(
            f'engine = "vllm"\ndocker_image = "{real_vllm.REF}"\nmodel = "{REPO}"\n'
            "port = 30095\nrequired_nodes = 4\ntensor_parallel_size = 4\n")
        self.plan = build_plan(self.loaded, load_recipe(root / "recipes" / "m" / "recipe.toml"),
                               None)
        self.runs = 0

    def moved(self) -> int:
        return self.hub.down + sum(p.up for p in self.fabric.values())

    def reset(self) -> None:
        for proxy in (self.hub, *self.fabric.values()):
            proxy.reset()

    def caches(self) -> dict[str, str]:
        self.runs += 1
        return {n.name: str(self.root / f"run{self.runs}" / n.name) for n in self.hosts.nodes}

    async def pull(self, caches: dict[str, str], on_transfer=None):
        engine = ClusterEngine(self.loaded.config)
        nodes = {n.name: n for n in self.loaded.config.clusters[0].nodes}
        try:
            transports = {n: engine.transport(nodes[n]) for n in caches}
            return await pull.pull_model(self.loaded.config, self.plan, transports, caches,
                                         ProgressLog(lambda _: None),
                                         on_transfer or (lambda _: None))
        finally:
            await engine.close()

    async def baseline(self, commit: str) -> None:
        engine = ClusterEngine(self.loaded.config)
        caches = self.caches()
        try:
            async def one(node) -> None:
                argv = ["env", f"HF_ENDPOINT={self.hub.url}", "HF_HUB_DISABLE_TELEMETRY=1",
                        str(HF), "download", REPO, "--revision", commit,
                        "--cache-dir", f"{caches[node.name]}/hub"]
                done = await engine.transport(node).run(argv_command(argv), timeout=3600)
                assert done.ok, done.stderr
            await asyncio.gather(*(one(n) for n in self.loaded.config.clusters[0].nodes))
        finally:
            await engine.close()


def timed_verify(spans: list[tuple[float, float]]):
    real = pull.on_node.verify

    async def verify(*args, **kwargs):
        started = time.perf_counter()
        try:
            return await real(*args, **kwargs)
        finally:
            spans.append((started, time.perf_counter()))
    return verify


def covered(spans: list[tuple[float, float]]) -> float:
    """Seconds during which at least one verification ran (the union of the spans)."""
    total, end = 0.0, float("-inf")
    for start, stop in sorted(spans):
        if stop > end:
            total += stop - max(start, end)
            end = stop
    return total


def run(mb: int, rate_mb: float) -> None:
    real_vllm.required()
    size = mb << 20
    files = {"config.json": '{"model_type": "llama"}',
             "model-00001-of-00002.safetensors": random.Random(1).randbytes(size // 2),
             "model-00002-of-00002.safetensors": random.Random(2).randbytes(size - size // 2)}
    with TestCluster(4) as hosts, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        olah = Olah(root / "olah")
        hub = None
        try:
            eventually(olah.ready, what="olah answers")
            commit = olah.add(REPO, files)
            hub = HubProxy(("127.0.0.1", olah.port), rate=rate_mb * 1e6)
            os.environ["HF_ENDPOINT"] = hub.url
            os.environ.pop("HF_HUB_OFFLINE", None)
            real_vllm.install(hosts.nodes[0])
            bench = Bench(hosts, root, olah, hub)

            spans: list[tuple[float, float]] = []
            pull.on_node.verify = timed_verify(spans)  # type: ignore[assignment]
            bench.reset()
            started = time.perf_counter()
            result = asyncio.run(bench.pull(bench.caches()))
            pull_s = time.perf_counter() - started
            assert result.ok, result.detail
            normal = bench.moved()
            verify_s = covered(spans)

            started = time.perf_counter()
            asyncio.run(bench.baseline(commit))
            base_s = time.perf_counter() - started

            bench.reset()
            caches = bench.caches()
            need = 4 * size
            seen: dict[str, Transfer] = {}

            async def interrupted() -> float:
                half = asyncio.Event()

                def on_transfer(t: Transfer) -> None:
                    seen[t.node] = t
                    # half the bytes there, and a copy under way (not between two rounds)
                    if sum(x.done for x in seen.values()) >= need / 2 and any(
                            0 < x.done < x.total for x in seen.values()):
                        half.set()
                task = asyncio.ensure_future(bench.pull(caches, on_transfer))
                waiter = asyncio.ensure_future(half.wait())
                await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
                at = sum(x.done for x in seen.values()) / need
                task.cancel()
                waiter.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
                return at

            at = asyncio.run(interrupted())
            first = bench.moved()
            bench.reset()
            result = asyncio.run(bench.pull(caches))
            assert result.ok, result.detail
            second = bench.moved()
            again = first + second - normal
        finally:
            if hub is not None:
                hub.close()
            olah.stop()
        print(f"\nmodel of {mb} MB (2 safetensors) to 4 nodes, Hub link {rate_mb:g} MB/s "
              "(a token-bucket proxy standing in for the internet link):")
        print(f"  pull_model (download once, copy over the fabric) {pull_s:7.2f} s")
        print(f"  hf download on each node at once                 {base_s:7.2f} s")
        print(f"  ratio                                            {pull_s / base_s:7.2f}x "
              "(goal: at most 0.6x)")
        print(f"  checksum verification                            {verify_s:7.2f} s = "
              f"{verify_s / pull_s:.0%} of the pull")
        print(f"  interrupted at {at:.0%} of the bytes, resumed: fetched again "
              f"{again / 1e6:.2f} MB = {again / need:.1%} of the {need / 1e6:.0f} MB needed "
              "(goal: under 5%)")
        print(f"    (bytes through the Hub and fabric proxies: {first / 1e6:.1f} MB before the "
              f"interruption + {second / 1e6:.1f} MB after, vs {normal / 1e6:.1f} MB for a "
              "pull not interrupted)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=int, default=80)
    ap.add_argument("--rate-mb", type=float, default=20.0)
    args = ap.parse_args()
    run(args.mb, args.rate_mb)
