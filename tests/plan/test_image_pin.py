"""The pure half of pinned images: a reference's parts, what a node's RepoDigests answer
may say (a sha256 of the recipe's own repo, nothing else), the nodes' agreement."""

from __future__ import annotations

import json

import pytest

from sparktui.plan.image_pin import (
    DigestReport,
    PinSaid,
    agreed,
    digest_of,
    moved,
    parse_reference,
    read_repo_digests,
    repo_digests_in_inspect,
)
from sparktui.said import Said

A = "sha256:" + "a" * 64
B = "sha256:" + "b" * 64
REG = "127.0.0.1:5000/org/img"


@pytest.mark.parametrize(("image", "repo", "tag", "digest"), [
    ("vllm/vllm-openai:latest", "vllm/vllm-openai", "latest", None),
    ("busybox", "busybox", None, None),
    (f"{REG}:v1", REG, "v1", None),
    ("127.0.0.1:5000/img", "127.0.0.1:5000/img", None, None),
    (f"{REG}@{A}", REG, None, A),
    (f"{REG}:v1@{A}", REG, "v1", A),
])
def test_a_reference_splits_at_the_tag_colon_after_the_last_slash(image, repo, tag, digest):
    ref = parse_reference(image)
    assert (ref.repo, ref.tag, ref.digest) == (repo, tag, digest)
    assert ref.mutable is (digest is None)


def test_the_digest_of_the_recipes_repo_is_taken_and_others_ignored():
    answer = [f"other/repo@{B}", f"{REG}@{A}"]
    assert digest_of("n1", f"{REG}:latest", answer) == A
    # Docker Hub's prefixes as docker shows them
    assert digest_of("n1", "docker.io/library/busybox:1", [f"busybox@{A}"]) == A


@pytest.mark.parametrize("entry", [
    f"{REG}@sha256:{'A' * 64}",  # upper case
    f"{REG}@sha256:{'a' * 63}",  # short
    f"{REG}@sha512:{'a' * 128}",
    f"{REG}@{A}\n",
    f"{REG}@{A};rm -rf /",
    f"{REG}@{A}" + "a",
])
def test_a_digest_that_is_not_a_sha256_is_refused_with_what_the_node_said(entry):
    got = digest_of("n1", f"{REG}:latest", [entry])
    assert isinstance(got, Said) and got.code is PinSaid.BAD_ANSWER
    assert got.params["node"] == "n1"


def test_another_repos_digest_is_not_ours_and_none_is_no_digest():
    got = digest_of("n1", f"{REG}:latest", [f"127.0.0.1:5000/org/evil@{A}"])
    assert isinstance(got, Said) and got.code is PinSaid.NO_DIGEST
    assert isinstance(digest_of("n1", f"{REG}:latest", []), Said)


def test_two_digests_of_one_repo_on_one_node_are_refused():
    got = digest_of("n1", f"{REG}:latest", [f"{REG}@{A}", f"{REG}@{B}"])
    assert isinstance(got, Said) and got.code is PinSaid.BAD_ANSWER


@pytest.mark.parametrize("answer", ['{"a": 1}', '["x", 3]', "not json", "[" * 5000])
def test_an_answer_that_is_not_a_list_of_strings_is_refused(answer):
    with pytest.raises(ValueError):
        read_repo_digests(answer)


def test_null_repo_digests_are_none_and_the_api_body_is_read():
    assert read_repo_digests("null") == []
    body = json.dumps({"Id": "sha256:x", "RepoDigests": [f"{REG}@{A}"]})
    assert repo_digests_in_inspect(body) == [f"{REG}@{A}"]
    with pytest.raises(ValueError):
        repo_digests_in_inspect("[]")


def test_the_nodes_agree_or_are_named_with_their_digests():
    assert agreed({"n1": A, "n2": A}) == A
    refusals = agreed({"n1": A, "n2": B})
    assert isinstance(refusals, list) and len(refusals) == 1
    assert refusals[0].code is PinSaid.DISAGREE
    assert f"n1={A}" in str(refusals[0]) and f"n2={B}" in str(refusals[0])


def test_a_node_that_cannot_say_is_a_refusal_never_agreement():
    silent = Said(PinSaid.NO_ANSWER, {"node": "n2", "why": "timeout"})
    assert agreed({"n1": A, "n2": silent}) == [silent]


def test_the_report_pins_the_repo_without_its_tag():
    report = DigestReport("toy", "c", f"{REG}:latest", {"n1": A, "n2": A})
    assert report.pinned_image == f"{REG}@{A}"
    assert report.as_json()["pinned"] == f"{REG}@{A}"
    split = DigestReport("toy", "c", f"{REG}:latest", {"n1": A, "n2": B})
    assert split.pinned_image is None and split.as_json()["refusals"]


def test_a_tag_moved_only_when_it_was_served_before_with_another_digest():
    assert moved(A, B) and not moved(A, A) and not moved(None, A)
