"""Writing the files sparktui owns (recipes, saved logs): all or nothing.

A temporary file in the same folder, flushed and synced, then ``os.replace``: a reader
(another sparktui, an editor, the dashboard's live reload) sees the old content or the
new one, never half of it. An existing file keeps its permission bits; a new one gets
``new_mode`` (saved logs: 0600, they may hold what the cluster printed).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path


def atomic_write_text(path: Path, text: str, new_mode: int = 0o644) -> None:
    """Replace ``path`` with ``text`` (UTF-8) in one step."""
    try:
        mode: int | None = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode if mode is not None else new_mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
