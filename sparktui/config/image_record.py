"""The digest each recipe's mutable image tag resolved to at its last serve, one small
JSON file per cluster beside the router's key: ``$XDG_STATE_HOME/sparktui/images/
<cluster>.json`` (default ``~/.local/state``).

Why kept on the operator's machine: it is the operator's memory of what ran, for serve's
warning that ``:latest`` moved; the nodes only know what they have now. Written whole or
not at all (``atomic_write_text``); a file that cannot be read, or holds anything but
sha256 digests, is no memory (the next serve writes it again), never an error of serve.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from sparktui import untrusted_json
from sparktui.config.files import atomic_write_text
from sparktui.config.rules import DIGEST
from sparktui.config.toml_source import read_text
from sparktui.errors import SparkError

MAX_BYTES = 1 << 20


def state_folder(env: dict[str, str] | None = None) -> Path:
    env = os.environ.copy() if env is None else env
    base = env.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "sparktui" / "images"


def record_path(cluster: str) -> Path:
    return state_folder() / f"{cluster}.json"


def _read(path: Path) -> dict[str, dict[str, str]]:
    try:
        data = untrusted_json.loads(read_text(path, limit=MAX_BYTES))
    except (SparkError, ValueError):
        return {}
    recipes = data.get("recipes") if isinstance(data, dict) else None
    if not isinstance(recipes, dict):
        return {}
    return {name: {"image": entry["image"], "digest": entry["digest"]}
            for name, entry in recipes.items()
            if isinstance(entry, dict) and isinstance(entry.get("image"), str)
            and isinstance(entry.get("digest"), str) and DIGEST.fullmatch(entry["digest"])}


def last_digest(cluster: str, recipe: str, image: str) -> str | None:
    """The digest kept at the recipe's last serve on the cluster, if it served the same
    image reference then (None: no record, or another image)."""
    entry = _read(record_path(cluster)).get(recipe)
    return entry["digest"] if entry and entry["image"] == image else None


def remember(cluster: str, recipe: str, image: str, digest: str) -> Path:
    """Keep ``digest`` as the recipe's last; the other recipes' entries stay. OSError
    when the folder cannot be written."""
    path = record_path(cluster)
    recipes = _read(path)
    recipes[recipe] = {"image": image, "digest": digest}
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    atomic_write_text(path, json.dumps({"recipes": recipes}, indent=2, sort_keys=True) + "\n",
                      new_mode=0o600)
    return path
