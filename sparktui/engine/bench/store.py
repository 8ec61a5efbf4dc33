"""Where results are kept: one JSON file per run in the user's data folder,
``$XDG_DATA_HOME/sparktui/bench`` (default ``~/.local/share/sparktui/bench``)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from sparktui.config.bench_result import BenchRun
from sparktui.errors import SparkError, fail
from sparktui.plan.bench.record import masked


def bench_dir(environ: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    env = os.environ if environ is None else environ
    data = env.get("XDG_DATA_HOME") or str((home or Path.home()) / ".local" / "share")
    return Path(data).expanduser() / "sparktui" / "bench"


def run_ids(directory: Path) -> set[str]:
    return {p.stem for p in directory.glob("*.json")} if directory.is_dir() else set()


def save(directory: Path, run: BenchRun) -> Path:
    """Written whole or not at all (a temp file renamed), readable by the user only, and
    masked once more here (``record.masked``: idempotent) so no secret reaches the disk
    whoever built the run."""
    run = masked(run)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{run.id}.json"
    temp = directory / f".{run.id}.json.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(json.dumps(run.model_dump(), indent=2) + "\n")
    os.replace(temp, path)
    return path


def load(path: Path) -> BenchRun:
    """A run file, validated; a clear problem naming the file when it is not one."""
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise fail("file_unreadable", file=path, detail=exc.strerror or str(exc)) from None
    except ValueError as exc:
        raise fail("bench_run_invalid", file=path, detail=str(exc)) from None
    try:
        return BenchRun.model_validate(data)
    except ValueError as exc:
        first = str(exc).splitlines()
        raise fail("bench_run_invalid", file=path,
                   detail=" ".join(first[:3]) if first else "") from None


def find(directory: Path, name: str) -> Path:
    """A run by id, unique prefix, or path."""
    as_path = Path(name)
    if as_path.suffix == ".json" and as_path.is_file():
        return as_path
    ids = sorted(run_ids(directory))
    if name in ids:
        return directory / f"{name}.json"
    matches = [i for i in ids if i.startswith(name)]
    if len(matches) == 1:
        return directory / f"{matches[0]}.json"
    raise fail("bench_run_unknown", name=name, directory=directory,
               known=(matches or ids[-5:]) or ["-"])


def load_all(directory: Path) -> tuple[list[BenchRun], list[str]]:
    """Every run, oldest first, and one line per file that is not a run."""
    runs, problems = [], []
    for path in sorted(directory.glob("*.json")) if directory.is_dir() else []:
        try:
            runs.append(load(path))
        except SparkError as exc:  # shown, never a traceback
            problems.append(str(exc))
    return runs, problems
