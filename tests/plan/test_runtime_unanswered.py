"""A runtime that does not answer is never read as "nothing there": the state and
listing parsers with what a failed docker daemon or tmux server prints, and the shell
lines built from a session name a node listed (untrusted) run nothing of it."""

from __future__ import annotations

import shlex

import pytest

from sparktui.engine.remote.transport import Completed
from sparktui.plan.runtime.base import MISSING, State, Unanswered
from sparktui.plan.runtime.docker import Docker
from sparktui.plan.runtime.tmux import _ERROR as _TMUX_ERROR
from sparktui.plan.runtime.tmux import Tmux

DOWN = ("Cannot connect to the Docker daemon at unix:///var/run/docker.sock. "
        "Is the docker daemon running?\n")


@pytest.mark.parametrize("stderr", [
    "Error: No such object: sparktui-x\n",  # docker.io 20.10's docker inspect
    "Error response from daemon: No such container: sparktui-x\n",  # docker container inspect
    "error: no such object: sparktui-x\n",
])
def test_docker_state_of_a_name_docker_lacks_is_missing(stderr: str) -> None:
    assert Docker().parse_state(Completed(1, "\n", stderr)) == State(MISSING)


@pytest.mark.parametrize("out", [
    Completed(1, "\n", DOWN),
    Completed(1, "", "permission denied while trying to connect to the Docker daemon socket "
                     "at unix:///var/run/docker.sock: connect: permission denied\n"),
    Completed(1, "", "Error response from daemon: i/o timeout\n"),
    Completed(127, "", "sh: 1: docker: not found\n"),
    Completed(0, "", ""),  # said nothing at all: nothing of the container either
])
def test_docker_state_of_a_daemon_that_does_not_answer_is_unanswered(out: Completed) -> None:
    with pytest.raises(Unanswered) as raised:
        Docker().parse_state(out)
    assert raised.value.detail == out.stderr.strip().removeprefix(
        "Error response from daemon: ")


def test_docker_state_error_is_bounded_and_keeps_no_prefix() -> None:
    with pytest.raises(Unanswered) as raised:
        Docker().parse_state(Completed(1, "", "Error response from daemon: " + "x" * 5000))
    assert raised.value.detail == "x" * 300


def test_docker_state_keeps_dockers_stderr() -> None:
    assert "2>" not in Docker().state_command("sparktui-x")


# tmux 3.3a's own words (run in a private socket folder, tests/engine/drivers/test_tmux_words.py)
NO_SOCKET = "error connecting to /tmp/tmux-0/default (No such file or directory)\n"
STALE = "no server running on /tmp/tmux-0/default\n"
UNSAFE = "directory /tmp/tmux-0 has unsafe permissions\n"
NOT_A_DIR = "couldn't create directory /tmp/f/tmux-0 (Not a directory)\n"
REFUSED_ACCESS = "error connecting to /tmp/tmux-0/default (Permission denied)\n"


@pytest.mark.parametrize("stderr", [NO_SOCKET, STALE, "can't find session: sparktui-x\n"])
def test_tmux_state_of_no_server_or_no_such_session_is_missing(stderr: str) -> None:
    assert Tmux().parse_state(Completed(1, "", stderr)) == State(MISSING)


def test_tmux_state_on_a_node_without_tmux_is_missing() -> None:
    assert Tmux().parse_state(Completed(127, "", "sh: 1: tmux: not found\n")).missing


@pytest.mark.parametrize("stderr", [UNSAFE, NOT_A_DIR, REFUSED_ACCESS, "server exited\n"])
def test_tmux_state_of_a_tmux_that_fails_is_unanswered(stderr: str) -> None:
    with pytest.raises(Unanswered) as raised:
        Tmux().parse_state(Completed(1, "", stderr))
    assert raised.value.detail == stderr.strip()


def test_tmux_state_keeps_tmuxs_stderr() -> None:
    assert "2>" not in Tmux().state_command("sparktui-x")


def test_a_tmux_listing_that_failed_is_its_error_never_no_sessions() -> None:
    tmux = Tmux()
    listing = tmux.parse_list(f"{_TMUX_ERROR}\n{UNSAFE}")
    assert listing.found == [] and listing.error == "tmux: " + UNSAFE.strip()
    assert tmux.parse_list(f"{_TMUX_ERROR}\n").error == "tmux: failed"
    assert tmux.parse_list("").error is None  # no server: none, and said so by the node


@pytest.mark.parametrize("said,error", [
    ("1:" + NO_SOCKET, False), ("1:" + STALE, False), ("127:sh: tmux: not found", False),
    ("1:" + UNSAFE, True), ("1:" + REFUSED_ACCESS, True), ("1:" + NOT_A_DIR, True),
])
def test_the_tmux_listing_tells_no_server_from_a_failure(said: str, error: bool) -> None:
    """The listing's shell line, run by sh with a stand-in ``tmux`` that exits and says as
    tmux does."""
    import subprocess
    import tempfile
    from pathlib import Path

    code, words = said.split(":", 1)
    with tempfile.TemporaryDirectory() as folder:
        fake = Path(folder) / "tmux"
        fake.write_text(f"#!/bin/sh\nprintf '%s' {shlex.quote(words)} >&2\nexit {code}\n")
        fake.chmod(0o755)
        out = subprocess.run(["sh", "-c", Tmux().list_command()], capture_output=True,
                             text=True, env={"PATH": f"{folder}:/usr/bin:/bin"}, timeout=60)
    listing = Tmux().parse_list(out.stdout)
    assert listing.found == []
    assert (listing.error is not None) is error, (out.stdout, listing)
    if error:
        assert listing.error == "tmux: " + words.strip()
