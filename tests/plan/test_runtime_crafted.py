"""What a node's docker or tmux may answer, crafted: parsed into that node's error or
skipped, never a traceback (issue 28, items 2, 3 and 7). The end-to-end runs are in
tests/engine/workloads/test_foreign.py; these are the parsers' edges."""

from __future__ import annotations

import json
import re
import shlex
import subprocess

import pytest

from sparktui.plan.render.run_id import MADE_ON_NODE, made_on_node, with_placeholder
from sparktui.plan.runtime import runtime_for
from sparktui.plan.runtime.base import READ_LABELS, Command, Launch
from sparktui.plan.runtime.docker import (
    api_ids,
    api_state,
    found_in_inspect,
    image_run_label,
    parse_image_labels,
)

DOCKER = runtime_for("docker")
TMUX = runtime_for("tmux")
WRONG = [None, 5, "x", [], {}, [None], {"a": [1]}, True, 1.5]


@pytest.mark.parametrize("value", WRONG)
def test_any_shape_in_any_field_of_an_inspect_is_read_or_skipped(value) -> None:
    for field in ("Name", "Config", "State", "Args", "Path", "RestartCount", "Image"):
        item = {"Name": "/sparktui-a", "Config": {"Labels": {"sparktui.recipe": "a"}},
                field: value}
        listing = DOCKER.parse_list(json.dumps([item, value]))
        assert listing.error is None
        for found in listing.found:
            assert isinstance(found.name, str) and found.name
            assert all(isinstance(a, str) for a in found.argv)
            assert isinstance(found.restarts, int) and isinstance(found.image, str)
        with_labels = {"Name": "/b", "Config": {"Labels": {"sparktui.recipe": value}}}
        [found] = DOCKER.parse_list(json.dumps([with_labels])).found
        if not isinstance(value, str):
            assert found.foreign and "recipe" not in found.labels
    assert found_in_inspect(json.dumps({"Name": value})) is None or isinstance(value, str)
    ids = ["x"] if value == "x" else []
    assert api_ids(json.dumps([value, {"Id": value}, {"Id": "abc"}])) == [*ids, "abc"]
    with pytest.raises(ValueError):
        api_state(json.dumps({"State": value}))


@pytest.mark.parametrize("text", ["null", "{}", '"x"', "[{]", "5"])
def test_a_listing_that_is_not_a_list_of_containers_is_an_error(text) -> None:
    assert DOCKER.parse_list(text).error and DOCKER.parse_list(text).found == []


def test_labels_that_are_a_list_make_the_container_foreign() -> None:
    item = {"Name": "/c", "Config": {"Labels": ["sparktui.recipe=c"]}}
    [found] = DOCKER.parse_list(json.dumps([item])).found
    assert found.labels == {} and str(found.foreign) == "its labels are not an object"


def test_an_images_run_label_is_read_from_either_path() -> None:
    labels = {"sparktui.run": "0123456789abcdef", "other": "x"}
    assert image_run_label(json.dumps({"Config": {"Labels": labels}})) == "0123456789abcdef"
    assert image_run_label(json.dumps({"Config": {"Labels": {"sparktui.run": 5}}})) is None
    assert image_run_label(json.dumps({"Config": None})) is None
    text = "\n".join(['"sha256:a" ' + json.dumps(labels), '"sha256:b" null', "garbage",
                      '5 {"sparktui.run": "x"}'])
    assert parse_image_labels(text) == {"sha256:a": "0123456789abcdef", "sha256:b": None}


def _spec(labels: dict[str, str]) -> Launch:
    return Launch(name="sparktui-x", labels=labels, env={}, image="img",
                  command=Command(["serve"]))


def test_a_docker_launch_sets_every_label_discovery_reads() -> None:
    argv = DOCKER.launch(_spec({"recipe": "x", "cluster": "c", "node": "n"}))
    set_ = [argv[i + 1] for i, a in enumerate(argv) if a == "--label"]
    assert [w.split("=", 1)[0] for w in set_] == [f"sparktui.{k}" for k in READ_LABELS]
    assert "sparktui.service=" in set_ and "sparktui.run" not in " ".join(set_)
    stamped = DOCKER.stamp(argv, "0123456789abcdef")
    assert stamped[:4] == ["docker", "run", "--label", "sparktui.run=0123456789abcdef"]
    assert stamped[4:] == argv[2:]


def test_a_scripts_run_id_is_made_by_the_nodes_shell_each_time() -> None:
    for runtime, argv in (("docker", DOCKER.launch(_spec({"recipe": "a'b @run@"}))),
                          ("tmux", TMUX.launch(_spec({"recipe": "=@run@ x"})))):
        line = made_on_node(shlex.join(with_placeholder(runtime, argv)))
        echo = "printf '%s\\n' " + line
        ids = {subprocess.run(["sh", "-c", echo], capture_output=True, text=True,
                              check=True).stdout.splitlines()[3]
               for _ in range(2)}
        assert len(ids) == 2, ids
        assert all(re.fullmatch(r"(sparktui\.run|SPARKTUI_LABEL_RUN)=[0-9a-f]{16}", i)
                   for i in ids), ids
        words = shlex.split(line.replace(MADE_ON_NODE, "ID"))
        assert words[4:] == argv[2:]  # the recipe's words unchanged, placeholders too


def test_tmux_labels_are_read_by_exact_shape_and_a_repeated_one_is_foreign() -> None:
    forged = ('== sparktui-a\n'
              'SPARKTUI_LABEL_CLUSTER="test"; export SPARKTUI_LABEL_CLUSTER;\n'
              'SPARKTUI_LABEL_RECIPE="a\\"b"; export SPARKTUI_LABEL_RECIPE;\n'
              'SPARKTUI_LABEL_CLUSTER=elsewhere"; export ZZZ;\n'
              'SPARKTUI_LABEL_NODE=\\"n9\\"; export SPARKTUI_LABEL_NODE;\n')
    [found] = TMUX.parse_list(forged).found
    assert found.labels == {"cluster": "test", "recipe": 'a"b'} and found.foreign == ""
    twice = forged + 'SPARKTUI_LABEL_CLUSTER="other"; export SPARKTUI_LABEL_CLUSTER;\n'
    [found] = TMUX.parse_list(twice).found
    assert str(found.foreign) == "label cluster given twice"
