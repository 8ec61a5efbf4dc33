"""``plan -o FILE``: write to what FILE is, never replace what the operator set up.

- a regular file (or a symlink to one) is replaced atomically, in the folder of the
  file the link points to, keeping its permission bits (the link stays a link);
- anything else that exists (a FIFO, ``/dev/null``, a terminal) is written through,
  as a shell's ``>`` would; a device node is never replaced;
- a folder, or a missing parent folder, is refused (exit 2): no folder is created;
- a new file gets 0755 for an ``sh`` plan, 0644 otherwise, less the umask.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from sparktui.errors import fail


def write_plan(path: Path, text: str, executable: bool) -> None:
    data = text.encode("utf-8")
    try:
        info: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise fail("output_unwritable", file=path,
                   detail=exc.strerror or type(exc).__name__) from None
    target = Path(os.path.realpath(path))
    try:
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise fail("output_is_folder", file=path)
        if info is not None and not stat.S_ISREG(info.st_mode):
            _write_through(path, data)
        elif info is not None:
            _replace(target, data, stat.S_IMODE(info.st_mode))
        elif not target.parent.is_dir():
            raise fail("output_no_folder", file=path, folder=target.parent)
        else:
            _replace(target, data, (0o777 if executable else 0o666) & ~_umask())
    except OSError as exc:
        raise fail("output_unwritable", file=path,
                   detail=exc.strerror or type(exc).__name__) from None


def _write_through(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_NOCTTY)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def _replace(target: Path, data: bytes, mode: int) -> None:
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
