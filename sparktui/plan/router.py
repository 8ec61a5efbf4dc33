"""The cluster's router: one OpenAI address in front of every recipe serving there.

The Shepherd Model Gateway (SMG, the Rust router that grew out of SGLang's) in a
container on one node (``[clusters.router]``). Each serving head is one of its workers
(``--worker-urls``, made from what runs): SMG reads the model a head serves from the head's
own /v1/models, lists every worker's model on its /v1/models and sends a request to a
worker serving its ``model``. Only addresses (a node's ``ssh_ip`` and a head's port) reach
its command line; model and recipe names never do.

SMG runs with two keys (``--api-key`` for its clients, ``--control-plane-api-keys`` for its
``/workers`` routes), but neither is in the plan nor in the container's argv (``docker
inspect``): the engine writes them to a 0600 file on the router's node (``KEY_DIR``),
mounted read-only, and the container's Python (``KEY_READER``) adds them to SMG's options
inside its own process before it starts SMG as the image's entrypoint would.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from sparktui.config.models import Cluster, Config
from sparktui.config.runtime_name import RuntimeName
from sparktui.plan.model import MountPlan
from sparktui.plan.runtime import runtime_for
from sparktui.plan.runtime.base import Command, ServiceLaunch

if TYPE_CHECKING:
    from sparktui.plan.model import LaunchPlan

CONTAINER = "sparktui--router"
"""Apart from every recipe's ``sparktui-<recipe>`` (a recipe name starts with a letter
or digit); it carries no ``sparktui.recipe`` label, so no recipe's stop takes it."""
ROUTER_LABEL = "router"
RUNTIME: RuntimeName = "docker"
"""What runs the router: SMG comes as an image (``[clusters.router] image``)."""
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
    # Errors and warnings: no log line per request.
    "--log-level", "warn",
]
"""SMG's options, as ``python3 -m smg.launch_router`` (its image's entrypoint) takes them."""
METRICS_PORT = 29000
"""SMG's default; its Prometheus metrics (every backend's address in its series) listen
on the node's own address only (``metrics_host``), never on every interface."""
KEY_DIR = "~/.local/state/sparktui/router"
"""On the router's node (``~``: ssh_user's home there): ``keys``, 0600, the client key and
this start's control key, one a line; mounted read-only at ``KEY_MOUNT``."""
KEY_MOUNT = "/run/sparktui-router"
KEY_FILE = "keys"
CONTROL_KEY_ID = "sparktui"
"""SMG's ``id:name:role:key`` entry for the control key (role admin)."""
KEY_READER = (
    "import runpy, sys; "
    f'client, control = open("{KEY_MOUNT}/{KEY_FILE}").read().split(); '
    'sys.argv = ["smg.launch_router", *sys.argv[1:], "--api-key", client, '
    f'"--control-plane-api-keys", "{CONTROL_KEY_ID}:{CONTROL_KEY_ID}:admin:" + control]; '
    'runpy.run_module("smg.launch_router", run_name="__main__", alter_sys=True)')
"""``python3 -c`` of the router's container: the keys join SMG's options in this process
(``sys.argv``), so no command line (``docker inspect``'s Args, ``/proc/PID/cmdline``)
holds them; then SMG starts as ``python3 -m smg.launch_router`` (lightseekorg/smg's
entrypoint) would start it. An image for ``[clusters.router] image`` needs ``python3`` with
the ``smg`` package, as lightseekorg/smg has."""


@dataclass(frozen=True)
class Backend:
    """One served model name, the recipe serving it and that head's base address."""

    model: str
    recipe: str
    worker: str
    node: str = ""  # the node whose transport found that head


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
    key_dir: str = ""
    """``KEY_DIR`` on its node, ``~`` expanded (the engine writes ``keys`` there)."""
    share_model: bool = False
    """``serve --share-model``: a model name another recipe already serves is balanced
    between both on purpose (serve refuses it otherwise)."""
    metrics: str = field(default="", compare=False)
    """``host:port`` of its Prometheus metrics."""

    @property
    def address(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def as_dict(self) -> dict[str, Any]:
        return {"kind": KIND, "node": self.node, "address": self.address,
                "port": self.port, "image": self.image, "launch": list(self.launch),
                "metrics": self.metrics, "share_model": self.share_model}

    @property
    def key_path(self) -> str:
        return f"{self.key_dir}/{KEY_FILE}"


def metrics_host(ssh_ip: str, ib_ip: str) -> str:
    """The node's own address for SMG's metrics: SMG binds only an IP (``ssh_ip``, else
    ``ib_ip``); a node known by its host name gets the loopback (read on the node only)."""
    for address in (ssh_ip, ib_ip):
        try:
            return str(ipaddress.ip_address(address))
        except ValueError:
            continue
    return "127.0.0.1"


def router_plan(cfg: Config, cluster: Cluster) -> RouterPlan | None:
    """None when the cluster has no ``[clusters.router]``."""
    node = cluster.router_node
    if cluster.router is None or node is None:
        return None
    router = cluster.router
    labels = {ROUTER_LABEL: KIND, "cluster": cluster.name, "node": node.name,
              "port": str(router.port)}
    key_dir = cfg.expand_home(KEY_DIR)
    metrics = metrics_host(node.ssh_ip, node.ib_ip)
    launch = runtime_for(RUNTIME).launch(ServiceLaunch(
        name=CONTAINER, labels=labels, env={}, image=router.image,
        mounts=[MountPlan(key_dir, KEY_MOUNT, read_only=True)],
        command=Command(["python3", "-c", KEY_READER, "--host", "0.0.0.0",
                         "--port", str(router.port), *ROUTER_ARGS,
                         "--prometheus-host", metrics,
                         "--prometheus-port", str(METRICS_PORT)],
                        replaces_entrypoint=True),
        gpus=False))
    return RouterPlan(cluster=cluster.name, node=node.name, host=node.ssh_ip,
                      port=router.port, image=router.image, launch=launch,
                      ready_timeout=router.ready_timeout_seconds, key_dir=key_dir,
                      metrics=f"{metrics}:{METRICS_PORT}")


def workers(backends: list[Backend]) -> list[str]:
    """Each serving head once (SMG learns its models from the head itself), in order."""
    return sorted({b.worker for b in backends})


def launch_for(plan: RouterPlan, backends: list[Backend]) -> list[str]:
    """The router's ``docker run`` with the heads that serve now as its workers."""
    return [*plan.launch, "--worker-urls", *workers(backends)]


SERVED_FLAG = "--served-model-name"
MODEL_FLAGS = ("--model-path", "--model")
"""SGLang's ``--model-path`` (and vLLM's ``--model``): the name served without
``--served-model-name``; else vLLM serves its positional model, the recipe's ``model``."""


def served_names(plan: LaunchPlan) -> list[str]:
    """The names the plan's head will list on /v1/models, read from its own argv: every
    ``--served-model-name`` value (vLLM takes several), else the model it loads."""
    argv = plan.head.launch
    names: list[str] = []
    for at, arg in enumerate(argv):
        if arg.startswith(SERVED_FLAG + "="):
            names.append(arg.partition("=")[2])
        elif arg == SERVED_FLAG:
            for value in argv[at + 1:]:
                if value.startswith("-"):
                    break
                names.append(value)
    if names:
        return list(dict.fromkeys(n for n in names if n))
    for at, arg in enumerate(argv[:-1]):
        if arg in MODEL_FLAGS:
            return [argv[at + 1]]
    return [plan.model]


def sharing(plan: LaunchPlan, share_model: bool) -> LaunchPlan:
    """``plan`` whose serve balances a model name another recipe serves (``--share-model``)."""
    if not share_model or plan.router is None:
        return plan
    return replace(plan, router=replace(plan.router, share_model=True))
