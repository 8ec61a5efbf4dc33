"""The cluster's router: one OpenAI address in front of every recipe serving there.

LiteLLM's proxy in a container on one node (``[clusters.router]``). Its config is made
from what runs, as data: each served model name becomes a ``model_list`` entry routed to
the head that serves it. Model and recipe names are untrusted: they only ever travel as
JSON values (``config_text``), written to the node on stdin, never into a command line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from sparktui.config.models import Cluster, Config
from sparktui.plan.model import MountPlan
from sparktui.plan.runtime.base import Command, ServiceLaunch
from sparktui.plan.runtime.docker import Docker

CONTAINER = "sparktui--router"
"""Apart from every recipe's ``sparktui-<recipe>`` (a recipe name starts with a letter
or digit); it carries no ``sparktui.recipe`` label, so no recipe's stop takes it."""
ROUTER_LABEL = "router"
KIND = "litellm"
CONFIG_IN_CONTAINER = "/app/config.yaml"
DUMMY_KEY = "sparktui-no-key"
"""LiteLLM's OpenAI client wants a key; the engines behind it check none."""
ENV = {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}
"""The model cost map shipped in the image: a cluster need not reach the internet."""


@dataclass(frozen=True)
class Backend:
    """One served model name and the head's OpenAI base that serves it."""

    model: str
    recipe: str
    api_base: str


@dataclass(frozen=True)
class RouterPlan:
    cluster: str
    node: str
    host: str
    port: int
    image: str
    config_path: str
    launch: list[str]
    ready_timeout: float

    @property
    def address(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def as_dict(self) -> dict[str, Any]:
        return {"kind": KIND, "node": self.node, "address": self.address,
                "port": self.port, "image": self.image, "config_path": self.config_path,
                "launch": list(self.launch)}


def router_plan(cfg: Config, cluster: Cluster) -> RouterPlan | None:
    """None when the cluster has no ``[clusters.router]``."""
    node = cluster.router_node
    if cluster.router is None or node is None:
        return None
    router = cluster.router
    config_path = cfg.expand_home(f"~/.cache/sparktui/router/{cluster.name}.yaml")
    labels = {ROUTER_LABEL: KIND, "cluster": cluster.name, "node": node.name,
              "port": str(router.port)}
    launch = Docker().launch(ServiceLaunch(
        name=CONTAINER, labels=labels, env=dict(ENV), image=router.image,
        mounts=[MountPlan(config_path, CONFIG_IN_CONTAINER, True)],
        command=Command(["--config", CONFIG_IN_CONTAINER, "--host", "0.0.0.0",
                         "--port", str(router.port)], replaces_entrypoint=False),
        gpus=False))
    return RouterPlan(cluster=cluster.name, node=node.name, host=node.ssh_ip,
                      port=router.port, image=router.image, config_path=config_path,
                      launch=launch, ready_timeout=router.ready_timeout_seconds)


def litellm_config(backends: list[Backend]) -> dict[str, Any]:
    """LiteLLM's proxy config: a model served by two recipes is balanced between them."""
    return {
        "model_list": [
            {"model_name": b.model,
             "litellm_params": {"model": f"openai/{b.model}", "api_base": b.api_base,
                                "api_key": DUMMY_KEY},
             "model_info": {"sparktui_recipe": b.recipe}}
            for b in sorted(backends, key=lambda b: (b.model, b.recipe, b.api_base))],
        # Open, as the engines behind it are (they run without --api-key): LiteLLM
        # refuses to start without a master key unless told so (docs/security.md).
        "general_settings": {"dangerously_permit_weak_or_unset_master_key": True},
        "litellm_settings": {"drop_params": False},
    }


# What YAML reads raw inside a double-quoted string unchanged: printable, and no line
# break of its own (U+0085, U+2028, U+2029 would be folded). The rest is escaped.
_NOT_RAW = re.compile("[^\x20-\x7e\n\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd"
                      "\U00010000-\U0010ffff]")


def config_text(config: dict[str, Any]) -> str:
    """JSON, which LiteLLM's YAML loader reads as the same data: every name is one
    quoted string, with what YAML would not keep as written escaped as ``\\uXXXX``
    (astral characters stay raw: PyYAML does not join escaped surrogate pairs)."""
    text = json.dumps(config, indent=2, ensure_ascii=False)
    return _NOT_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"
