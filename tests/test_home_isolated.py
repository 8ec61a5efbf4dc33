"""No test writes into the home of whoever runs the suite (issue 29, item 11): the session
runs in homes of its own (tests/home_support.py), every place sparktui keeps state
follows them, and the real home's sparktui folders are as they were when it began (the
session's end checks that once more, after every test)."""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

import home_support
from plan_support import run_module

from sparktui.config.discovery import user_recipes_dir
from sparktui.config.loader import load_config
from sparktui.engine.bench.kept import bench_dir
from sparktui.engine.remote.hostkeys import known_hosts_path
from sparktui.engine.remote.local import LocalTransport
from sparktui.engine.router_key import state_folder
from sparktui.engine.supervise import shell
from sparktui.plan.runtime.tmux import LOG_DIR

REAL = Path(os.environ[home_support.REAL_HOME])


def _home() -> Path:
    return Path(os.environ["HOME"])


def test_the_tests_run_in_a_home_of_their_own():
    home = _home()
    assert home != REAL and home.is_relative_to(tempfile.gettempdir())
    assert Path.home() == home and Path("~").expanduser() == home
    for name, sub in home_support.XDG.items():
        assert Path(os.environ[name]) == home / sub


def test_every_place_sparktui_keeps_state_is_in_that_home(tmp_path):
    home = _home()
    (tmp_path / "config.toml").write_text(
        '[[clusters]]\nname = "c"\nnodes = [{ name = "n1", ssh_ip = "127.0.0.1", '
        'rank = 0, local = true }]\n')
    config = load_config(tmp_path / "config.toml").config
    paths = [state_folder(), bench_dir(), known_hosts_path(config), user_recipes_dir()]
    # a local node's shell: supervision's files (marks, lease, record) and tmux logs
    local = LocalTransport(config.clusters[0].nodes[0], config)

    async def where(command: str) -> str:
        return (await local.run(command, timeout=10)).stdout.strip()

    paths += [Path(asyncio.run(where(shell.home()))),
              Path(asyncio.run(where(f"printf '%s\\n' {LOG_DIR}")))]
    for path in paths:
        assert path.is_relative_to(home) and not path.is_relative_to(REAL), path


def test_a_sparktui_process_writes_its_local_nodes_state_there_not_in_the_real_home(
        tmp_path):
    before = home_support.listing(REAL)
    # no config: this machine is the cluster `local`; ending its supervision writes a
    # mark into the local node's supervision folder, through its shell
    run_module(["supervise", "--end"], cwd=tmp_path)
    marks = _home() / ".local/state/sparktui/supervise/marks.jsonl"
    assert '"action":"end"' in marks.read_text()
    assert home_support.listing(REAL) == before


def test_the_real_homes_sparktui_state_is_as_it_was_when_the_session_began():
    assert home_support.changed() == []
