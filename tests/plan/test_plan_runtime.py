"""The runtime interface, pure: names, state parsers, removal, listing split per runtime."""

from __future__ import annotations

import json

import pytest

from sparktui.engine.remote.transport import Completed
from sparktui.plan.runtime import RUNTIMES, runtime_for
from sparktui.plan.runtime.base import MISSING, State
from sparktui.plan.runtime.listing import list_all_command, parse_list_all


def test_every_runtime_is_found_by_its_own_name() -> None:
    assert list(RUNTIMES) == ["docker", "tmux"]
    assert all(runtime_for(name).name == name for name in RUNTIMES)


@pytest.mark.parametrize(("out", "state"), [
    (Completed(0, "running 0\n", ""), State("running")),
    (Completed(0, "exited 137\n", ""), State("exited", 137)),
    (Completed(1, "", "Error: No such object: x"), State(MISSING)),
])
def test_docker_state(out: Completed, state: State) -> None:
    assert runtime_for("docker").parse_state(out) == state


def test_an_ended_session_is_kept_with_its_status() -> None:
    """Its pane stays (remain-on-exit) with the command's status, as an exited container."""
    tmux = runtime_for("tmux")
    assert tmux.parse_state(Completed(1, "", "can't find session")).missing
    assert tmux.parse_state(Completed(0, "1:7::\n", "")) == State("exited", 7)
    assert tmux.parse_state(Completed(0, "1:7::7\n", "")) == State("exited", 7)
    assert tmux.parse_state(Completed(0, "1::15:\n", "")) == State("exited", None)  # a signal
    # tmux marked the pane dead and never learnt its status (CI flake: "exited" without
    # the 5): the status the wrapper kept in the pane's option is the answer.
    assert tmux.parse_state(Completed(0, "1:::5\n", "")) == State("exited", 5)
    assert tmux.parse_state(Completed(0, "1:::\n", "")) == State("exited", None)
    assert tmux.parse_state(Completed(0, "0:::\n", "")) == State("running")
    assert tmux.parse_state(Completed(0, "0:::5\n", "")) == State("running")  # about to end
    assert tmux.parse_state(Completed(0, "what\n", "")) == State("unknown")  # never running
    assert tmux.keeps_ended and runtime_for("docker").keeps_ended
    assert str(State("exited", 1)) == "exited 1" and str(State("running")) == "running"


def test_docker_removal_waits_whole_seconds_then_removes() -> None:
    removal = runtime_for("docker").removal("sparktui-x", 2.5)
    assert removal.stop == "docker stop -t 3 sparktui-x" and removal.stop_seconds == 3
    assert removal.remove == "docker rm -f sparktui-x"
    assert runtime_for("docker").removed(Completed(1, "", "Error: No such container: x"))
    assert runtime_for("tmux").removal("s", 30).stop is None


def test_listing_splits_by_runtime_and_the_first_needs_no_marker() -> None:
    assert list_all_command().index("docker ps") < list_all_command().index("tmux ls")
    inspect = [{"Name": "/sparktui-a", "State": {"Status": "running"},
                "Config": {"Labels": {"sparktui.recipe": "a"}, "Image": "img"}}]
    alone = parse_list_all(json.dumps(inspect))
    assert [f.name for f in alone["docker"].found] == ["sparktui-a"]
    assert alone["tmux"].found == []
    both = parse_list_all("@@sparktui-docker-error@@\nCannot connect\n@@sparktui-tmux@@\n"
                          "== sparktui-b\n@@state 1:3::\n"
                          'SPARKTUI_LABEL_RECIPE="b"; export SPARKTUI_LABEL_RECIPE;\n'
                          "== sparktui-c\n")
    assert both["docker"].error == "Cannot connect"
    assert [(f.name, f.labels, f.status, f.exit_code) for f in both["tmux"].found] == [
        ("sparktui-b", {"recipe": "b"}, "exited (3)", 3)]
