"""The image pull's pure decisions: which node's ID counts, the doubling copy schedule
and the pairs it needs trusted, and what a node's answers may be."""

from __future__ import annotations

import json

from sparktui.plan.pull.image import (
    LayerProgress,
    dd_bytes,
    image_id,
    image_size,
    reference,
    schedule,
)

ID = "sha256:" + "a" * 64


def test_nobody_has_it_the_head_pulls_and_copies_double_each_round():
    plan = schedule(["n1", "n2", "n3", "n4", "n5"], [])
    assert plan.puller == "n1"
    assert plan.rounds == [[("n1", "n2")], [("n1", "n3"), ("n2", "n4")], [("n1", "n5")]]
    assert plan.pairs == [("n1", "n2"), ("n1", "n3"), ("n2", "n4"), ("n1", "n5")]


def test_nodes_that_have_it_are_the_first_sources():
    plan = schedule(["n1", "n2", "n3", "n4"], ["n3"])
    assert plan.puller is None
    assert plan.rounds == [[("n3", "n1")], [("n3", "n2"), ("n1", "n4")]]


def test_everyone_has_it_nothing_moves():
    plan = schedule(["n1", "n2"], ["n1", "n2"])
    assert not plan.moves and plan.pairs == []


def test_the_first_node_with_an_id_counts():
    assert reference({"n1": None, "n2": ID, "n3": "sha256:" + "b" * 64}, ["n1", "n2", "n3"]) \
        == ("n2", ID)
    assert reference({"n1": None}, ["n1"]) is None


def test_a_node_answer_is_believed_only_when_it_reads_as_one():
    assert image_id(ID + "\n") == ID
    for bad in ("sha256:" + "A" * 64, "sha256:abc", ID + "; rm -rf /", "", "latest"):
        assert image_id(bad) is None
    assert image_size("123456\n") == 123456
    for bad in ("-1", "0", "1e9", "9" * 20, "12 34", ""):
        assert image_size(bad) is None
    assert dd_bytes("1048576 bytes (1.0 MB, 1.0 MiB) copied, 1 s, 1.0 MB/s") == 1048576
    assert dd_bytes("0+1 records in") is None


def test_the_registry_progress_sums_layers_and_keeps_the_error():
    seen = LayerProgress()
    for message in ({"status": "Pulling fs layer", "id": "a"},
                    {"status": "Downloading", "id": "a",
                     "progressDetail": {"current": 10, "total": 100}},
                    {"status": "Downloading", "id": "b",
                     "progressDetail": {"current": 5, "total": 50}},
                    {"status": "Downloading", "id": "c",
                     "progressDetail": {"current": True, "total": -3}},  # not counts
                    {"status": "Download complete", "id": "a"}):
        seen.read(json.dumps(message))
    seen.read("not json")
    seen.read("[1, 2]")
    assert (seen.done, seen.total) == (105, 150)
    seen.read(json.dumps({"error": "manifest unknown", "errorDetail": {}}))
    assert seen.error == "manifest unknown"
