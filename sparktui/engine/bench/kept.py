"""Benchmarks as the front-ends hold them: the tool and its progress level by level, a
run kept and where, and the runs kept on this machine, read on demand.

A light module (``sparktui.engine.api`` passes it on): the store's models of a run
(pydantic) and the tool's driver are imported by the functions that need them, when
called, so neither the dashboard's first frame nor ``plan`` pays for them.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sparktui.errors import fail
from sparktui.said import Text

if TYPE_CHECKING:
    from sparktui.config.bench_result import BenchRun

TOOL_ENV = "SPARKTUI_AIPERF"


@dataclass(frozen=True)
class BenchProgress:
    concurrency: int
    level: int  # 1-based
    levels: int
    done: int  # requests finished (the tool's per-request records)
    total: int
    state: str  # "started" | "running" | "done" | "stopping"


ProgressSink = Callable[[BenchProgress], None]


class BenchFailed(Exception):
    """The tool ended without a result for a level: its last lines say why."""


def find_tool(environ: dict[str, str] | None = None) -> str:
    """$SPARKTUI_AIPERF, else ``aiperf`` on PATH; a clear refusal when neither is."""
    env = os.environ if environ is None else environ
    explicit = env.get(TOOL_ENV)
    if explicit:
        if shutil.which(explicit) is None:
            raise fail("bench_tool_missing", tool=explicit)
        return explicit
    found = shutil.which("aiperf")
    if found is None:
        raise fail("bench_tool_missing", tool="aiperf")
    return found


@dataclass(frozen=True)
class BenchHeard:
    """Who hears ``sparktui bench`` as it goes: a note on the way the load goes (the
    router passed over), the line that says where it goes, each level's progress."""

    note: Callable[[Text], None]  # sentences as data (``target.BenchSaid``)
    starting: Callable[[Text], None]
    level: ProgressSink


@dataclass(frozen=True)
class Benched:
    """A run measured and kept: the run, and the file that keeps it."""

    run: BenchRun
    path: Path


def bench_dir(environ: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    env = os.environ if environ is None else environ
    data = env.get("XDG_DATA_HOME") or str((home or Path.home()) / ".local" / "share")
    return Path(data).expanduser() / "sparktui" / "bench"


def kept_runs(directory: Path) -> tuple[list[BenchRun], list[str]]:
    """Every run kept in ``directory``, oldest first, and what could not be read."""
    from sparktui.engine.bench.store import load_all

    return load_all(directory)


def kept(directory: Path, names: Sequence[str]) -> list[BenchRun]:
    """The runs ``names`` (an id, a prefix, or a file) in ``directory``; refused when one
    is not there."""
    from sparktui.engine.bench.store import find, load

    return [load(find(directory, name)) for name in names]
