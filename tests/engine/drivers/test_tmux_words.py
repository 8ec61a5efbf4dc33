"""tmux's listing and state read run by the real tmux (3.3) in a private socket folder
and on a real host's node: only its words for "no server" and "no such session" mean
none; any other failure (a socket folder tmux refuses, one it cannot create) is the
listing's error and the state read's ``Unanswered``, never "no sessions" (health says
unknown, stop does not say nothing was running, the supervisor does not restart)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from sparktui.plan.runtime.base import Command, Launch, Unanswered
from sparktui.plan.runtime.tmux import Tmux

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="no tmux")

TMUX = Tmux()
SHELLS = ["sh", "bash"]


class _Out:
    def __init__(self, done: subprocess.CompletedProcess) -> None:
        self.exit_code, self.stdout, self.stderr = done.returncode, done.stdout, done.stderr


@pytest.fixture
def tmpdir_() -> Iterator[Path]:
    """A short folder (a socket path has at most 107 bytes), its tmux server ended after."""
    folder = Path(tempfile.mkdtemp(prefix="tmx", dir="/tmp"))
    yield folder
    # the server a test started (by its socket here): a test without one has none to end
    subprocess.run(["tmux", "kill-server"], env=_env(folder), capture_output=True, timeout=30)
    shutil.rmtree(folder, ignore_errors=True)


def _env(folder: Path) -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "HOME": str(folder), "TMUX_TMPDIR": str(folder)}


def _run(shell: str, command: str, folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run([shell, "-c", command], env=_env(folder), capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)


def _socket_dir(folder: Path) -> Path:
    return folder / f"tmux-{os.getuid()}"


@pytest.mark.parametrize("shell", SHELLS)
def test_no_server_and_a_socket_left_behind_list_no_sessions(tmpdir_: Path, shell: str):
    listing = TMUX.parse_list(_run(shell, TMUX.list_command(), tmpdir_).stdout)
    assert (listing.found, listing.error) == ([], None)  # "error connecting to ... (No such"
    assert TMUX.parse_state(_Out(_run(shell, TMUX.state_command("sparktui-x"), tmpdir_))
                            ).missing
    _socket_dir(tmpdir_).mkdir(mode=0o700, exist_ok=True)  # tmux made it
    left = socket.socket(socket.AF_UNIX)
    left.bind(str(_socket_dir(tmpdir_) / "default"))  # nothing listens: "no server running"
    left.close()
    said = _run(shell, "tmux ls", tmpdir_).stderr
    assert said.startswith("no server running on "), said
    listing = TMUX.parse_list(_run(shell, TMUX.list_command(), tmpdir_).stdout)
    assert (listing.found, listing.error) == ([], None)
    assert TMUX.parse_state(_Out(_run(shell, TMUX.state_command("sparktui-x"), tmpdir_))
                            ).missing


@pytest.mark.parametrize("shell", SHELLS)
def test_a_tmux_that_fails_is_the_listings_error_and_no_state(tmpdir_: Path, shell: str):
    _socket_dir(tmpdir_).mkdir(mode=0o700)
    _socket_dir(tmpdir_).chmod(0o777)  # tmux refuses it: "has unsafe permissions"
    listing = TMUX.parse_list(_run(shell, TMUX.list_command(), tmpdir_).stdout)
    assert listing.found == [] and listing.error is not None
    assert "unsafe permissions" in str(listing.error), listing.error
    with pytest.raises(Unanswered, match="unsafe permissions"):
        TMUX.parse_state(_Out(_run(shell, TMUX.state_command("sparktui-x"), tmpdir_)))


def test_a_running_server_lists_its_session_and_a_name_it_lacks_is_missing(tmpdir_: Path):
    launch = TMUX.launch(Launch(name="sparktui-x", labels={"recipe": "toy"}, env={},
                                command=Command(["sleep", "600"])))
    started = subprocess.run(launch, env=_env(tmpdir_), capture_output=True, text=True,
                             timeout=60)
    assert started.returncode == 0, started.stderr
    listing = TMUX.parse_list(_run("sh", TMUX.list_command(), tmpdir_).stdout)
    assert listing.error is None and [f.name for f in listing.found] == ["sparktui-x"]
    assert TMUX.parse_state(_Out(_run("sh", TMUX.state_command("sparktui-x"), tmpdir_))
                            ).running
    said = _run("sh", TMUX.state_command("sparktui-other"), tmpdir_)
    assert "can't find session" in said.stderr, said.stderr
    assert TMUX.parse_state(_Out(said)).missing


def test_a_nodes_tmux_that_fails_makes_its_workloads_unknown_never_none(fresh_site, capsys):
    """On a real host: the node's tmux refuses its socket folder, so what runs there is
    unknown (health exits 1 and says why), never "idle"."""
    import json

    from sparktui.cli import main

    s = fresh_site(1)
    unsafe = 'd="$TMUX_TMPDIR/tmux-$(id -u)"; mkdir -p "$d"; chmod {mode} "$d"'
    assert s.hosts.ssh("node1", unsafe.format(mode="777")).returncode == 0
    try:
        capsys.readouterr()
        assert main(s.cli("health", "--json")) == 1
        row = json.loads(capsys.readouterr().out)["nodes"][0]
    finally:
        s.hosts.ssh("node1", unsafe.format(mode="700"))
    assert row["workloads"] == [] and "unsafe permissions" in json.dumps(row["docker_error"])
    assert main(s.cli("health", "--json")) == 0  # and tmux's own "no server" is none
    assert json.loads(capsys.readouterr().out)["nodes"][0]["docker_error"] is None
