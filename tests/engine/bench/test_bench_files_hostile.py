"""Benchmark files are shared on purpose (``bench --compare a.json b.json``), so one may
be crafted: deep JSON was a RecursionError, ``1e308`` tokens/s a babel InvalidOperation,
a 4000-digit concurrency a plotext OverflowError, in ``--list``, ``--compare`` and the
dashboard's ``b``. Each is now that file's problem, naming it; the good runs still show.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from bench_support import a_run
from tui.support import make_app

from sparktui.config.bench_result import MAX_CONCURRENCY, MAX_RATE, MAX_SECONDS
from sparktui.engine.bench.store import MAX_DEPTH, MAX_FILE_BYTES, load, load_all
from sparktui.errors import SparkError
from sparktui.tui.screens.bench_results import BenchResultsScreen

GOOD = "20261201-120000-toy"


def _good() -> str:
    return json.dumps(a_run("64").model_dump(), indent=1)


def _with(old: str, new: str) -> str:
    text = _good()
    assert old in text
    return text.replace(old, new, 1)


def _value(key: str, number: str) -> str:
    """The good run with the first number of ``key`` replaced, as text."""
    text, done = re.subn(rf'"{key}": [-0-9.e+]+', f'"{key}": {number}', _good(), count=1)
    assert done == 1
    return text


CRAFTED = {
    "deep.json": ('{"format": "1", "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
                  f"nests 100001 levels deep (at most {MAX_DEPTH})"),
    "deep-in-settings.json": (_with('"settings": {', '"settings": {"x": ' + "[" * 40
                                    + "]" * 40 + ", "), "nests 43 levels deep"),
    "huge-float.json": (_value("output_tokens_per_second", "1e308"),
                        "levels.0.output_tokens_per_second"),
    "huge-ttft.json": (_value("p50", "1e300"), "levels.0.ttft.p50"),
    "inf.json": (_value("p50", "1e999"), "holds the number 1e999"),
    "nan.json": (_value("p50", "NaN"), "holds the number NaN"),
    "digits.json": (_value("concurrency", "9" * 4000), "holds the number 9999999999"),
    "big-concurrency.json": (_value("concurrency", str(MAX_CONCURRENCY + 1)),
                             "levels.0.concurrency"),
    "negative.json": (_value("p50", "-1"), "levels.0.ttft.p50"),
}


@pytest.fixture
def folder(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    where = tmp_path / "data" / "sparktui" / "bench"
    where.mkdir(parents=True)
    (where / f"{GOOD}.json").write_text(_good())
    for name, (text, _) in CRAFTED.items():
        (where / name).write_text(text)
    return where


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_a_crafted_file_is_a_problem_naming_it(folder: Path, name: str) -> None:
    path = folder / name
    with pytest.raises(SparkError) as caught:
        load(path)
    said = str(caught.value)
    assert said.startswith(f"{path}"), said
    assert CRAFTED[name][1] in said, said


def test_a_file_past_the_size_limit_is_refused_unread(folder: Path) -> None:
    path = folder / "big.json"
    with path.open("w") as f:
        f.write('{"format": "1", "pad": "')
        f.write("x" * MAX_FILE_BYTES)
        f.write('"}')
    with pytest.raises(SparkError) as caught:
        load(path)
    assert str(caught.value) == (f"{path}: is larger than 8 MiB: not a sparktui benchmark run "
                                 "(one is a few kilobytes)")


def test_a_json_syntax_error_names_its_line(folder: Path) -> None:
    path = folder / "broken.json"
    path.write_text('{\n "format": "1",\n "id": oops\n}\n')
    with pytest.raises(SparkError) as caught:
        load(path)
    assert str(caught.value).startswith(f"{path}:3: is not a sparktui benchmark run: ")


def test_strings_full_of_brackets_and_escapes_are_not_depth(folder: Path) -> None:
    text = _with('"recipe": "toy"', '"recipe": "toy' + "[{" * 50 + '\\\\\\"' + "[" * 50 + '"')
    path = folder / "brackets.json"
    path.write_text(text)
    assert load(path).recipe.startswith("toy[{")


def test_list_keeps_the_good_run_and_lists_every_bad_file(folder: Path) -> None:
    runs, problems = load_all(folder)
    assert [r.id for r in runs] == [GOOD]
    assert len(problems) == len(CRAFTED)
    for name in CRAFTED:
        assert any(p.startswith(str(folder / name)) for p in problems), name


def _cli(*args: str, folder: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_DATA_HOME": str(folder.parents[1]), "SPARKTUI_CONFIG": ""}
    return subprocess.run([sys.executable, "-m", "sparktui", "--lang", "en", "bench", *args],
                          capture_output=True, text=True, env=env, timeout=120)


def test_bench_list_and_compare_on_crafted_files(folder: Path) -> None:
    done = _cli("--list", folder=folder)
    assert done.returncode == 0, done.stderr
    assert GOOD in done.stdout
    assert "Traceback" not in done.stderr
    for name in CRAFTED:
        assert str(folder / name) in done.stderr, name
    for name in ("deep.json", "digits.json", "huge-ttft.json"):
        done = _cli("--compare", GOOD, str(folder / name), folder=folder)
        assert done.returncode == 2, done
        assert "Traceback" not in done.stderr
        assert done.stderr.startswith(str(folder / name)), done.stderr


def test_the_dashboard_lists_bad_files_and_plots_runs_at_the_bounds(folder: Path) -> None:
    """``b`` opens on crafted files, and plots a run whose every number is at its bound
    (plotext and babel take the largest values the model lets through)."""
    extreme = a_run("64", 1.0, "20261201-130000-toy").model_dump()
    for level in extreme["levels"]:
        level.update(concurrency=MAX_CONCURRENCY, output_tokens_per_second=MAX_RATE,
                     request_throughput=MAX_RATE, duration_seconds=MAX_SECONDS)
        for stat in ("ttft", "itl", "e2e"):
            level[stat] = {"mean": MAX_SECONDS, "p50": MAX_SECONDS, "p90": 5e-324,
                           "p99": MAX_SECONDS}
    (folder / "20261201-130000-toy.json").write_text(json.dumps(extreme))
    app = make_app()

    async def go() -> str:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("b")
            await pilot.pause(0.3)
            screen = app.screen
            assert isinstance(screen, BenchResultsScreen)
            assert [r.id for r in screen.runs] == [GOOD, "20261201-130000-toy"]
            await pilot.pause(0.2)
            return str(screen.query_one("#bench-list-text").render())

    shown = asyncio.run(go())
    for name in CRAFTED:
        assert str(folder / name) in shown, name
