"""The images of a test process's first daemon, kept to seed the data root of the next.

A load unpacks the image archive (thousands of files) and costs a daemon about 1.2 s of
CPU; a seeded start costs about 0.2 s. Only what the images are is kept: the layers
(``overlay2``: hard links, so nothing is copied; a layer is never written once
committed, a container writes to a layer of its own) and the image store (``image``:
copied, dockerd rewrites its files). Containers, networks, volumes and the daemon's
databases are each daemon's own, made at its start.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


class ImageSeed:
    """A seed in ``folder``: kept once, planted in any number of new data roots."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def keep(self, data: Path) -> None:
        """Called right after the first load, before anything else changes ``data``."""
        if self.folder.exists():
            return
        partial = self.folder.with_name(self.folder.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        _copy_images(data, partial)
        partial.rename(self.folder)

    def plant(self, data: Path) -> bool:
        """``data`` seeded with the images (a new daemon's data root); False when there
        is no seed yet, or ``data`` already holds a daemon's files."""
        if not self.folder.exists() or data.exists():
            return False
        _copy_images(self.folder, data)
        return True


def _copy_images(source: Path, target: Path) -> None:
    target.mkdir(parents=True)
    subprocess.run(["cp", "-a", str(source / "image"), str(target / "image")], check=True)
    subprocess.run(["cp", "-al", str(source / "overlay2"), str(target / "overlay2")],
                   check=True)
