"""Snapshots of the benchmark runs view (``b``): two runs kept in a temp data folder
(built from a real aiperf 0.13 export, no live timing), plotted against concurrency.

Update with: python -m pytest -n 0 tests/tui/test_snapshots_bench.py --snapshot-update
"""

from __future__ import annotations

import json

import pytest
from bench_support import a_run
from textual.pilot import Pilot

from tui.support import make_app


@pytest.fixture
def kept(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    folder = tmp_path / "data" / "sparktui" / "bench"
    folder.mkdir(parents=True)
    for run in (a_run("64"), a_run("128", 1.4, "20261201-130000-toy")):
        (folder / f"{run.id}.json").write_text(json.dumps(run.model_dump()))
    return folder


async def _open(pilot: Pilot) -> None:
    await pilot.press("b")
    await pilot.pause(0.2)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_bench_results(snap_compare, kept, size):
    assert snap_compare(make_app(), terminal_size=size, run_before=_open)


def test_bench_results_in_watch_mode_and_empty(snap_compare, tmp_path, monkeypatch):
    """Read-only, so the wall screen has it too; nothing kept yet says how to make one."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "empty"))
    assert snap_compare(make_app(watch=True), terminal_size=(80, 24), run_before=_open)
