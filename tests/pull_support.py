"""Shared parts of the image pull's tests: a recipe on a given image, the registry's refs
cleaned from the pooled daemons, what the nodes' docker recorded."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from registry_support import Registry
from site_support import Recorder, Site

from sparktui.engine.api import ActionResult, Transfer

RECIPE = """engine = "vllm"
docker_image = "{image}"
model = "org/toy"
port = 30011
required_nodes = {nodes}
tensor_parallel_size = {nodes}
entrypoint = ["vllm", "serve"]
"""
"""A recipe only pulled, never served: no engine runs under these tests."""


def image_recipe(s: Site, image: str, nodes: int) -> None:
    s.recipe("toy", RECIPE.format(image=image, nodes=nodes))


def push(node, reg: Registry, repo: str, variant: str) -> tuple[str, str]:
    """A new image pushed to the registry from ``node``, then untagged there (its layers
    stay, the tag is gone); the ref and its image ID."""
    ref = f"{reg.addr}/{repo}:latest"
    image = node.add_image(ref, variant=variant)
    pushed = node.docker("push", ref, timeout=300)
    assert pushed.returncode == 0, pushed.stderr
    node.remove_image(ref)
    assert node.image_id(ref) is None
    return ref, image


def pull(s: Site) -> tuple[ActionResult, Recorder, list[Transfer]]:
    rec, transfers = Recorder(), []

    async def go() -> ActionResult:
        engine = s.engine()
        try:
            return await engine.pull_image(s.plan("toy"), rec, transfers.append)
        finally:
            await engine.close()

    return asyncio.run(go()), rec, transfers


def verbs(node) -> list[str]:
    """The docker subcommands the node ran (``save``, ``load``, ``pull``, ...)."""
    return [argv[1] for argv in node.recorded_docker() if len(argv) > 1]


def moved_bytes(nodes) -> list[str]:
    """Every save, load or pull any of ``nodes`` ran."""
    return [f"{n.name}:{v}" for n in nodes for v in verbs(n) if v in ("save", "load", "pull")]


@pytest.fixture
def clean_refs(registry) -> Iterator[list]:
    """The pooled daemons lose the refs a test gave them (digests included)."""
    nodes: list = []
    yield nodes
    for node in nodes:
        got = node.docker("image", "ls", "--digests", "--format",
                          "{{.Repository}}@{{.Digest}} {{.Repository}}:{{.Tag}}")
        for line in got.stdout.split():
            if line.startswith((registry.addr, "sparktest-pull/")) \
                    and not line.endswith(("@<none>", ":<none>")):
                node.docker("rmi", line)
