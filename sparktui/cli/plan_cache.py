"""Reuse a plan computed before from byte-identical inputs, without loading pydantic.

Most of a cold ``sparktui plan`` is pydantic building its validators; scripts that
export the same plan again (CI, wrappers, watch loops) get it back from
``~/.cache/sparktui/plans``. The key covers everything the output depends on: the
config and recipe bytes and paths, the arguments, the language, the machine's
identity for the built-in cluster, and every file of the installed package (so an
upgrade or an edit invalidates it). Only successful outputs are stored.
"""

from __future__ import annotations

import getpass
import hashlib
import os
import socket
import tempfile
from pathlib import Path

from sparktui import __version__
from sparktui.resources import data_dir

MAX_ENTRIES = 256
_PACKAGE = Path(__file__).resolve().parents[1]


def enabled() -> bool:
    return os.environ.get("SPARKTUI_NO_CACHE", "") in ("", "0")


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "sparktui" / "plans"


def _fingerprint(hasher: hashlib._Hash) -> None:
    """Name, size and mtime of every file that shapes a plan: code, scripts, catalogs."""
    for root in (_PACKAGE, data_dir("host-scripts"), data_dir("locales")):
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith((".py", ".sh", ".mo", ".toml")):
                    stat = os.stat(os.path.join(folder, name))
                    hasher.update(f"{folder}/{name}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())


def key(config: Path | None, recipe: Path, words: list[str]) -> str:
    hasher = hashlib.sha256(f"sparktui {__version__}\n".encode())
    _fingerprint(hasher)
    for word in words:
        hasher.update(f"arg:{word}\n".encode())
    if config is None:
        identity = f"builtin:{getpass.getuser()}:{socket.gethostname()}:{Path.home()}"
        hasher.update(identity.encode())
    else:
        hasher.update(f"config:{config.resolve()}\n".encode() + config.read_bytes())
    hasher.update(f"recipe:{recipe.resolve()}\n".encode() + recipe.read_bytes())
    return hasher.hexdigest()


def lookup(digest: str) -> str | None:
    try:
        return (cache_dir() / digest).read_text(encoding="utf-8")
    except OSError:
        return None


def store(digest: str, text: str) -> None:
    """Best effort: a read-only home or a full disk only costs the speed-up."""
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, folder / digest)
        entries = sorted(folder.iterdir(), key=lambda p: p.stat().st_mtime)
        for old in entries[:-MAX_ENTRIES]:
            old.unlink(missing_ok=True)
    except OSError:
        pass
