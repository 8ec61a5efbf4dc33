"""A session name a node listed is untrusted: the tmux log reads built from it, run by a
real shell, read the file of that name and run nothing the name holds (the name was
spliced into ``"$HOME/.cache/sparktui/NAME.log"`` and a ``"`` in it ended the quotes)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from polling import eventually
from test_tmux_words import _env, _run, tmpdir_  # noqa: F401  (tmpdir_: the fixture)

from sparktui.plan.runtime.base import Command, Launch
from sparktui.plan.runtime.tmux import LABEL_ENV, Tmux

TMUX = Tmux()
HOSTILE = ['sparktui-x";touch pwned;"', "sparktui-x';touch pwned;'", "sparktui-$(touch pwned)",
           "sparktui-`touch pwned`", "sparktui-x;touch pwned", "sparktui-x\ntouch pwned"]


def _read(command: str, home: Path, path: str) -> subprocess.CompletedProcess:
    """``command`` run by bash in ``home`` (its cwd too), with a stand-in ``tmux`` that
    prints a process that is not there (a follow then ends after its first read)."""
    bin_ = home / "bin"
    bin_.mkdir(exist_ok=True)
    (bin_ / "tmux").write_text("#!/bin/sh\necho 2147483646\n")
    (bin_ / "tmux").chmod(0o755)
    return subprocess.run(["bash", "-c", command], cwd=home, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL,
                          env={"PATH": f"{bin_}:{path}", "HOME": str(home)})


@pytest.mark.parametrize("name", HOSTILE)
@pytest.mark.parametrize("tail,follow", [(None, False), (5, False), (None, True), (3, True)])
def test_the_logs_of_a_hostile_name_read_its_file_and_run_nothing(tmp_path: Path, name: str,
                                                                  tail, follow) -> None:
    logs = tmp_path / ".cache" / "sparktui"
    logs.mkdir(parents=True)
    (logs / f"{name}.log").write_text("one\ntwo\n")
    out = _read(TMUX.logs_command(name, tail, follow), tmp_path, os.environ["PATH"])
    assert out.stdout == "one\ntwo\n", (out.stdout, out.stderr)
    assert not (tmp_path / "pwned").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".cache", "bin"]


def test_a_listed_hostile_name_is_kept_as_said_and_its_logs_run_nothing(tmp_path: Path):
    name = HOSTILE[0]
    listing = TMUX.parse_list(f"== {name}\n@@state 0:::\n"
                              f'{LABEL_ENV}RECIPE="toy"; export {LABEL_ENV}RECIPE;\n')
    assert [f.name for f in listing.found] == [name]
    (tmp_path / ".cache" / "sparktui").mkdir(parents=True)
    out = _read(TMUX.logs_command(listing.found[0].name, None, False), tmp_path,
                os.environ["PATH"])
    assert not (tmp_path / "pwned").exists(), out.stderr


def test_a_real_session_with_a_hostile_name_is_listed_and_its_log_read(tmpdir_: Path):  # noqa: F811
    """Real tmux: the session is started as sparktui starts one (its log written by
    ``_LOGGED``), listed by the node's shell line, and its log read back by bash."""
    name = HOSTILE[0]
    started = subprocess.run(
        TMUX.launch(Launch(name=name, labels={"recipe": "toy"}, env={},
                           command=Command(["sh", "-c", "echo hello-from-x; exec sleep 600"]))),
        env=_env(tmpdir_), cwd=tmpdir_, capture_output=True, text=True, timeout=60)
    assert started.returncode == 0, started.stderr
    listing = TMUX.parse_list(_run("sh", TMUX.list_command(), tmpdir_).stdout)
    assert listing.error is None and [f.name for f in listing.found] == [name]

    def read() -> str:
        return subprocess.run(["bash", "-c", TMUX.logs_command(name, None, False)],
                              env=_env(tmpdir_), cwd=tmpdir_, capture_output=True, text=True,
                              timeout=60).stdout

    log = tmpdir_ / ".cache" / "sparktui" / f"{name}.log"
    eventually(lambda: log.exists() and log.stat().st_size > 0, what="the session's log")
    assert read() == "hello-from-x\n"  # the file of that name, not the pane
    assert not (tmpdir_ / "pwned").exists()
