"""Where results are kept: one JSON file per run in the user's data folder,
``$XDG_DATA_HOME/sparktui/bench`` (default ``~/.local/share/sparktui/bench``)."""

from __future__ import annotations

import json
import math
import operator
import os
import re
from itertools import accumulate, count
from pathlib import Path

from sparktui import untrusted_json
from sparktui.config.bench_result import BenchRun
from sparktui.config.toml_source import read_text
from sparktui.errors import SparkError, fail
from sparktui.plan.bench.record import masked
from sparktui.visible import shorten


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


MAX_FILE_BYTES = 8 << 20
"""A run is a few kilobytes; a shared file past 8 MiB is refused before it is read."""
MAX_DEPTH = 16
"""A run nests five deep (run, levels, level, ttft, value); the tool's settings a few more.
Checked before parsing: deep JSON was a RecursionError in ``--list`` and the dashboard."""
MAX_DIGITS = 24
"""The longest number a run holds (``1e308`` has 5 characters, a count 13 digits): a
4000-digit concurrency took plotext past a float; Python's own limit is 4300 digits."""
_STRING = re.compile(r'"[^"]*"')  # once escaped backslashes and quotes are gone
_OPENS = bytes.maketrans(b"[{]}", b"\x02\x02\x00\x00")
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")


def load(path: Path) -> BenchRun:
    """A run file, validated; a clear problem naming the file when it is not one.

    Read like a config (a regular file, at most ``MAX_FILE_BYTES``), its nesting and its
    numbers bounded before and while it is parsed, then every number checked against the
    model's ranges: a crafted file is that file's problem, never a traceback."""
    text = read_text(path, limit=MAX_FILE_BYTES, too_large="bench_run_too_large")
    if (depth := _depth(text)) > MAX_DEPTH:
        raise fail("bench_run_too_deep", file=path, depth=depth, limit=MAX_DEPTH)
    try:
        data = untrusted_json.loads(text, parse_int=_integer, parse_float=_float,
                          parse_constant=_constant)
    except _NumberRefused as exc:
        raise fail("bench_run_number", file=path, number=shorten(exc.text, 24),
                   limit=MAX_DIGITS) from None
    except json.JSONDecodeError as exc:
        raise fail("bench_run_invalid", file=path, line=exc.lineno, detail=exc.msg) from None
    except ValueError as exc:
        raise fail("bench_run_invalid", file=path, detail=str(exc)) from None
    try:
        return BenchRun.model_validate(data)
    except ValueError as exc:
        first = str(exc).splitlines()
        raise fail("bench_run_invalid", file=path,
                   detail=" ".join(first[:3]) if first else "") from None


class _NumberRefused(ValueError):
    def __init__(self, text: str):
        super().__init__(text)
        self.text = text


def _integer(text: str) -> int:
    if len(text) > MAX_DIGITS:
        raise _NumberRefused(text)
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if len(text) > MAX_DIGITS or not math.isfinite(value):  # 1e999 is inf
        raise _NumberRefused(text)
    return value


def _constant(text: str) -> float:
    raise _NumberRefused(text)  # NaN, Infinity, -Infinity: not JSON, and not a measure


def _depth(text: str) -> int:
    """How deep arrays and objects nest, strings aside, without parsing: the brackets
    left once strings are removed, counted in C (an 8 MiB file of ``[`` in a few ms)."""
    unescaped = text.replace("\\\\", "").replace('\\"', "")  # \\ first: \\\" is \\ then \"
    plain = _STRING.sub("", unescaped).encode("ascii", "ignore")
    brackets = plain.translate(_OPENS, _NOT_BRACKETS)
    # each '[' is 2 and each ']' 0: the running sum less the position is the depth
    return max(map(operator.sub, accumulate(brackets), count(1)), default=0)


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
