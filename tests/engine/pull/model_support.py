"""What the model pull's tests share: a model repo on olah, a recipe of the real vLLM's
image (its python3 sees the vLLM venv, which holds huggingface_hub: the download runs
there, as in vLLM's and SGLang's own images), each node's own HF cache, and a pull run
on sparktui's engine with what it reported.

Why each node gets its own cache folder here: the test nodes share this machine's file
system and one config (one ``hf_cache``); on Sparks each node's cache is its own disk.
The engine's ``pull_model`` takes a cache per node, and these tests give each node one
beside the config (not under the node's home: the test bed mounts a node's state folder
read-only into its containers, over the cache's own bind).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path

from hosts.testimage import real_vllm

from sparktui.engine.progress import ProgressLog
from sparktui.engine.pull.model import pull_model
from sparktui.engine.pull.transfer import Transfer
from sparktui.engine.results import ActionResult, Progress

TOKEN = "hf_pulltoken_never_shown_0123456789"


def weights(size: int, seed: int = 1) -> bytes:
    """Random-looking bytes, the same for a seed (a safetensors file's body)."""
    import random

    return random.Random(seed).randbytes(size)


def model_repo(size: int = 3 << 20) -> dict[str, bytes | str]:
    return {"config.json": json.dumps({"model_type": "llama"}),
            "model.safetensors": weights(size),
            "tokenizer/tokenizer.json": json.dumps({"version": "1.0"})}


def recipe(repo: str, nodes: int) -> str:
    return (f'engine = "vllm"\ndocker_image = "{real_vllm.REF}"\nmodel = "{repo}"\n'
            f"port = 30071\nrequired_nodes = {nodes}\ntensor_parallel_size = {nodes}\n")


def cache_of(node) -> Path:
    return Path(node.cluster.root) / "hf" / node.name


@dataclass
class Pulled:
    result: ActionResult
    events: list[Progress] = field(default_factory=list)
    transfers: list[Transfer] = field(default_factory=list)

    def text(self) -> str:
        """Everything the pull said, as words."""
        parts = [str(e.detail) for e in self.events] + [str(self.result.detail)]
        return "\n".join(parts + [repr(t) for t in self.transfers])


def run_pull(site, recipe_name: str, on: list | None = None) -> Pulled:
    return asyncio.run(pull_async(site, recipe_name, on))


async def pull_async(site, recipe_name: str, on: list | None = None,
                     task_box: list | None = None) -> Pulled:
    engine = site.engine()
    plan = site.plan(recipe_name)
    nodes = {n.name: n for n in site.loaded.config.clusters[0].nodes}
    transports = {n.name: engine.transport(nodes[n.name]) for n in plan.nodes}
    caches = {n.name: str(cache_of(site.hosts.node(n.name))) for n in plan.nodes}
    pulled = Pulled(ActionResult(ok=False))
    try:
        pulled.result = await pull_model(site.loaded.config, plan, transports, caches,
                                         ProgressLog(pulled.events.append),
                                         pulled.transfers.append)
    finally:
        await engine.close()
    return pulled


def repo_folder(node, repo: str) -> Path:
    return cache_of(node) / "hub" / f"models--{repo.replace('/', '--')}"


def docker_runs(cluster, node) -> list[list[str]]:
    return [a for a in cluster.recorded_docker(node) if a[:2] == ["docker", "run"]]


def files_of(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.lstat().st_size for p in folder.rglob("*")
            if not p.is_dir()} if folder.exists() else {}

