"""Live reload: notice edits to the config file and the recipes while the dashboard runs.

A poll of ``os.stat`` (mtime, size, inode) over the config file, the recipes folder and
each ``*/recipe.toml``: a few dozen system calls every couple of seconds, no dependency,
and it sees atomic replaces (new inode), in-place writes and new or removed recipes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from sparktui.config.loaded import LoadedConfig
from sparktui.errors import SparkError

Stamp = tuple[int, int, int] | None


def _stamp(path: Path | str) -> Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def config_path(config: LoadedConfig | SparkError) -> Path | None:
    """The file a config came from (a broken one: the file its first problem names)."""
    if isinstance(config, LoadedConfig):
        return config.source.path
    return next((p.file for p in config.problems if p.file is not None), None)


@dataclass(frozen=True)
class Changes:
    config: bool = False
    recipes: bool = False

    def __bool__(self) -> bool:
        return self.config or self.recipes


class FileWatch:
    """What changed on disk since the last :meth:`poll` (or :meth:`seen`)."""

    def __init__(self, config_path: Path | None, recipes_dir: Path) -> None:
        self.config_path = config_path
        self.recipes_dir = recipes_dir
        self._config: Stamp = None
        self._recipes: dict[str, Stamp] | None = None
        self.seen()

    def seen(self) -> None:
        """Take the current state as known (after the dashboard's own writes, say)."""
        self._config = self._config_stamp()
        self._recipes = self._recipes_stamps()

    def poll(self) -> Changes:
        config, recipes = self._config_stamp(), self._recipes_stamps()
        changes = Changes(config=config != self._config, recipes=recipes != self._recipes)
        self._config, self._recipes = config, recipes
        return changes

    def _config_stamp(self) -> Stamp:
        return _stamp(self.config_path) if self.config_path is not None else None

    def _recipes_stamps(self) -> dict[str, Stamp] | None:
        try:
            with os.scandir(self.recipes_dir) as entries:
                names = [e.name for e in entries if e.is_dir()]
        except OSError:
            return None
        stamps = {name: _stamp(os.path.join(self.recipes_dir, name, "recipe.toml"))
                  for name in names}
        return {name: stamp for name, stamp in stamps.items() if stamp is not None}
