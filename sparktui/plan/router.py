"""The cluster's router: one OpenAI address in front of every recipe serving there.

The Shepherd Model Gateway (SMG, the Rust router that grew out of SGLang's) in a
container on one node (``[clusters.router]``). Each serving head is one of its workers
(``--worker-urls``, made from what runs): SMG reads the model a head serves from the head's
own /v1/models, lists every worker's model on its /v1/models and sends a request to a
worker serving its ``model``. Only addresses (a node's ``ssh_ip`` and a head's port) reach
its command line; model and recipe names never do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sparktui.config.models import Cluster, Config
from sparktui.plan.runtime.base import Command, ServiceLaunch
from sparktui.plan.runtime.docker import Docker

CONTAINER = "sparktui--router"
"""Apart from every recipe's ``sparktui-<recipe>`` (a recipe name starts with a letter
or digit); it carries no ``sparktui.recipe`` label, so no recipe's stop takes it."""
ROUTER_LABEL = "router"
KIND = "smg"
ROUTER_ARGS = [
    # Not --enable-igw: that mode takes its workers from service discovery or its /workers
    # API only (it drops --worker-urls); the regular mode already routes by "model" among
    # its workers and lists every worker's model on /v1/models.
    # A model served by two recipes is balanced between them, one request each in turn
    # (the default, cache_aware, keeps a prefix tree of every prompt for KV-cache reuse
    # that engines of different recipes do not share).
    "--policy", "round_robin",
    # A pure HTTP proxy: the engines tokenize; SMG needs no tokenizer (and would look for
    # one under the model's name, on the Hugging Face Hub, which a cluster may not reach).
    "--disable-tokenizer-autoload",
    # Its Prometheus metrics on SMG's own default address and port, said here as the
    # router's --host is (a node of the test bed binds its own address for both).
    "--prometheus-host", "0.0.0.0", "--prometheus-port", "29000",
    # Errors and warnings: no log line per request.
    "--log-level", "warn",
]
"""SMG's options, as ``python3 -m smg.launch_router`` (its image's entrypoint) takes them."""


@dataclass(frozen=True)
class Backend:
    """One served model name, the recipe serving it and that head's base address."""

    model: str
    recipe: str
    worker: str


@dataclass(frozen=True)
class RouterPlan:
    cluster: str
    node: str
    host: str
    port: int
    image: str
    launch: list[str]
    """Its ``docker run``; :func:`launch_for` adds the workers that serve at the time."""
    ready_timeout: float

    @property
    def address(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def as_dict(self) -> dict[str, Any]:
        return {"kind": KIND, "node": self.node, "address": self.address,
                "port": self.port, "image": self.image, "launch": list(self.launch)}


def router_plan(cfg: Config, cluster: Cluster) -> RouterPlan | None:
    """None when the cluster has no ``[clusters.router]``."""
    del cfg  # the router has no file on its node: its whole config is its argv
    node = cluster.router_node
    if cluster.router is None or node is None:
        return None
    router = cluster.router
    labels = {ROUTER_LABEL: KIND, "cluster": cluster.name, "node": node.name,
              "port": str(router.port)}
    launch = Docker().launch(ServiceLaunch(
        name=CONTAINER, labels=labels, env={}, image=router.image,
        command=Command(["--host", "0.0.0.0", "--port", str(router.port), *ROUTER_ARGS],
                        replaces_entrypoint=False),
        gpus=False))
    return RouterPlan(cluster=cluster.name, node=node.name, host=node.ssh_ip,
                      port=router.port, image=router.image, launch=launch,
                      ready_timeout=router.ready_timeout_seconds)


def workers(backends: list[Backend]) -> list[str]:
    """Each serving head once (SMG learns its models from the head itself), in order."""
    return sorted({b.worker for b in backends})


def launch_for(plan: RouterPlan, backends: list[Backend]) -> list[str]:
    """The router's ``docker run`` with the heads that serve now as its workers."""
    return [*plan.launch, "--worker-urls", *workers(backends)]
