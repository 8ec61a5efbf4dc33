"""HF cache references: where ``refs/main`` points, as host and container paths.

Pure path arithmetic; the engine reads ``refs/main`` on each node and calls these.
"""

from __future__ import annotations

from sparktui.plan.container import HF_CACHE_CONTAINER
from sparktui.plan.model import HfRef


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
