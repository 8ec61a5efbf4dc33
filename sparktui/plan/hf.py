"""HF cache references: where ``refs/main`` points, as host and container paths.

Pure path arithmetic; the engine reads ``refs/main`` on each node and calls these.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from sparktui.config.validation import PLACEHOLDER
from sparktui.plan.container import HF_CACHE_CONTAINER
from sparktui.plan.model import HfRef, NodePlan


def repo_dir(hf_cache_host: str, repo: str) -> str:
    return f"{hf_cache_host.rstrip('/')}/hub/models--{repo.replace('/', '--')}"


def refs_main_path(hf_cache_host: str, repo: str) -> str:
    return f"{repo_dir(hf_cache_host, repo)}/refs/main"


def snapshot_path(hf_cache_host: str, ref: HfRef, commit: str) -> str:
    path = f"{repo_dir(hf_cache_host, ref.repo)}/snapshots/{commit.strip()}"
    return f"{path}/{ref.subfolder.strip('/')}" if ref.subfolder else path


def to_container(hf_cache_host: str, host_path: str) -> str:
    """Rewrite the host cache prefix to the mount target, so symlinks still resolve."""
    prefix = hf_cache_host.rstrip("/")
    if host_path == prefix or host_path.startswith(prefix + "/"):
        return HF_CACHE_CONTAINER + host_path[len(prefix):]
    return host_path


_SAFE_PATH = re.compile(r"[A-Za-z0-9._/@+=,-]+")


def safe_path(path: str) -> bool:
    """Resolved paths are substituted into argv and scripts: only plain path characters."""
    return _SAFE_PATH.fullmatch(path) is not None  # "$" would let a final newline through


def substitute(node: NodePlan, values: Mapping[str, str]) -> NodePlan:
    """Fill ``{{placeholder}}`` in a node's launch argv and env with resolved paths."""
    def sub(text: str) -> str:
        return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)

    return replace(node, launch=[sub(a) for a in node.launch],
                   env={k: sub(v) for k, v in node.env.items()})
