"""The first frame's peek at the config reads it like the loader: bounded, never blocking,
and the names it paints have their control characters escaped."""

from __future__ import annotations

import os
from pathlib import Path

from sparktui.tui.startup import peek_clusters


def test_a_fifo_config_is_not_waited_for(tmp_path: Path) -> None:
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    assert peek_clusters(fifo) == ()  # before: open() blocked until a writer came


def test_peeked_names_are_escaped(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[[clusters]]\nname = "c\\u001b[2J"\nnodes = [{ name = "n\\u202e1" }]\n',
                    encoding="utf-8")
    assert peek_clusters(path) == (("c\\x1b[2J", ("n\\u202e1",)),)
