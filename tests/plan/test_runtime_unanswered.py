"""A runtime that does not answer is never read as "nothing there": the state and
listing parsers with what a failed docker daemon or tmux server prints, and the shell
lines built from a session name a node listed (untrusted) run nothing of it."""

from __future__ import annotations

import pytest

from sparktui.engine.remote.transport import Completed
from sparktui.plan.runtime.base import MISSING, State, Unanswered
from sparktui.plan.runtime.docker import Docker

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
