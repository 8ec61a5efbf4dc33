"""The session: plain Python that holds the config's state and the engine, without Textual."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from null_engine import NullEngine
from plan_support import REPO, subprocess_env

from sparktui.config.loader import load_config
from sparktui.engine.api import ReadOnlyView
from sparktui.errors import Problem, SparkError
from sparktui.tui.options import TuiOptions
from sparktui.tui.session import Session
from tui.support import EXAMPLE_CONFIG, RECIPES


def test_importing_the_session_imports_no_textual():
    code = ("import json, sys\nimport sparktui.tui.session\n"
            "print(json.dumps(sorted(sys.modules)))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=subprocess_env(),
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    modules = json.loads(proc.stdout.splitlines()[-1])
    assert "sparktui.tui.session" in modules
    assert [m for m in modules if m == "textual" or m.startswith("textual.")] == []


class Engine(NullEngine):
    """Built for a config; records that it was closed. It does not say which config it
    was built for: the session knows (it built it), it never asks the engine."""

    def __init__(self) -> None:
        self.closed = False

    async def close(self) -> None:
        self.closed = True


def _session(loaded, reload, *, watch_mode: bool = False) -> tuple[Session, list[Engine]]:
    built: list[Engine] = []

    def factory(config):
        built.append(Engine())
        return built[-1]

    session = Session(loaded, RECIPES, factory(loaded), watch_mode=watch_mode,
                      options=TuiOptions(), reload_config=reload, engine_factory=factory)
    return session, built


def test_a_reload_rebuilds_the_engine_only_when_the_config_changed(tmp_path: Path):
    loaded = load_config(EXAMPLE_CONFIG)
    edited = tmp_path / "config.toml"
    edited.write_text("telemetry_interval_seconds = 9\n" + EXAMPLE_CONFIG.read_text())
    changed = load_config(edited)
    answers = [loaded, changed]
    session, built = _session(loaded, lambda: answers.pop(0))
    assert session.loaded is loaded and session.pending is None and session.error is None
    assert session.reload() is None and session.engine is built[0]  # same config: kept
    old = session.engine
    assert session.reload() is old and session.engine is built[1]  # changed: a new one
    assert session.loaded is changed and session.telemetry_interval == 9.0
    assert session.to_close(busy=True) == []  # an action may still hold the old one
    assert session.to_close(busy=False) == [old]
    assert session.to_close(busy=False) == []
    assert session.engines() == [built[1]]


def test_a_failed_reload_keeps_the_state_until_told():
    loaded = load_config(EXAMPLE_CONFIG)
    error = SparkError([Problem("broken")])

    def reload():
        raise error

    session, _built = _session(loaded, reload)
    with pytest.raises(SparkError):
        session.reload()
    assert session.loaded is loaded  # a live reload keeps the dashboard on it
    session.broke(error)
    assert session.error is error and session.loaded is None and session.telemetry_interval is None


def test_watch_mode_holds_a_read_only_view_and_hands_out_no_control():
    loaded = load_config(EXAMPLE_CONFIG)
    session, _built = _session(loaded, None, watch_mode=True)
    assert isinstance(session.engine, ReadOnlyView) and session.control() is None
    writable, built = _session(loaded, None)
    assert writable.control() is built[0] and writable.engine is built[0]


def test_the_mode_alone_decides_whether_the_session_hands_out_a_control():
    """A double that answers nothing is still handed out as the control outside
    ``--watch``: what the session was given, not what the object happens to have."""
    loaded = load_config(EXAMPLE_CONFIG)
    engine = NullEngine()
    session = Session(loaded, RECIPES, engine, watch_mode=False, options=TuiOptions())
    assert session.control() is engine and session.engine is engine
    watching = Session(loaded, RECIPES, engine, watch_mode=True, options=TuiOptions())
    assert watching.control() is None and isinstance(watching.engine, ReadOnlyView)
    empty = Session(loaded, RECIPES, None, watch_mode=False, options=TuiOptions())
    assert empty.control() is None and empty.engine is None
