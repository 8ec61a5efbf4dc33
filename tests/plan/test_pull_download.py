"""The head's registry download, read from its own docker: which registries its daemon
reaches over plain HTTP, which platform of an index it pulls, and what a hostile answer
is (never a size). The answers' shapes are docker CLI 20.10's (``manifest inspect -v``),
as the test bed's real one prints them."""

from __future__ import annotations

import json

import pytest

from sparktui.plan.pull.download import (
    MANIFEST_LIMIT,
    download_size,
    insecure,
    need,
    platform,
    registry_host,
)

CONFIG = json.dumps({
    "InsecureRegistryCIDRs": ["127.0.0.0/8", "10.9.0.0/16"],
    "IndexConfigs": {"docker.io": {"Name": "docker.io", "Secure": True},
                     "nas.lab:5000": {"Name": "nas.lab:5000", "Secure": False}},
})


@pytest.mark.parametrize(("image", "host"), [
    ("vllm/vllm-openai:v0.9", "docker.io"),
    ("ubuntu", "docker.io"),
    ("nvcr.io/nvidia/vllm:25.09-py3", "nvcr.io"),
    ("127.0.0.1:5000/org/x:latest", "127.0.0.1:5000"),
    ("localhost/x", "localhost"),
    ("org/x@sha256:" + "a" * 64, "docker.io"),
])
def test_the_registry_is_the_first_part_only_when_docker_takes_it_for_a_host(image, host):
    assert registry_host(image) == host


@pytest.mark.parametrize(("host", "plain"), [
    ("127.0.0.1:5000", True),        # the daemon's default loopback range
    ("localhost:5000", True),
    ("10.9.3.4:5000", True),         # a range the site added
    ("nas.lab:5000", True),          # named insecure in its index configs
    ("docker.io", False),
    ("nvcr.io", False),
    ("10.8.0.1:5000", False),
    ("registry.lab", False),         # a name is not resolved: secure unless named
])
def test_the_cli_is_told_insecure_exactly_where_the_daemon_would_be(host, plain):
    assert insecure(CONFIG, host) is plain


@pytest.mark.parametrize("answer", ["", "not json", "[" * 5000, "[]", '"x"',
                                    json.dumps({"InsecureRegistryCIDRs": "127.0.0.0/8"}),
                                    json.dumps({"InsecureRegistryCIDRs": ["nonsense", 7]})])
def test_a_registry_config_that_does_not_read_is_secure(answer):
    assert insecure(answer, "127.0.0.1:5000") is False


def _entry(arch: str, *sizes: object, key: str = "SchemaV2Manifest") -> dict:
    return {"Ref": "r", "Descriptor": {"platform": {"architecture": arch, "os": "linux"}},
            key: {"layers": [{"size": s, "digest": "sha256:" + "0" * 64} for s in sizes]}}


def test_the_download_is_the_node_platforms_layers():
    index = json.dumps([_entry("amd64", 100, 200), _entry("arm64", 1000, 2000, 3000)])
    assert download_size(index, platform("linux aarch64")) == 6000
    assert download_size(index, platform("linux x86_64")) == 300
    assert download_size(index, platform("linux s390x")) is None  # not in the index
    assert download_size(json.dumps([_entry("arm64", 7)]), ("linux", "amd64")) is None
    single = json.dumps(_entry("arm64", 5, 6, key="OCIManifest"))
    assert download_size(single, ("linux", "amd64")) == 11  # one manifest: what is pulled
    assert need(1000) == 2500


@pytest.mark.parametrize("answer", [
    "", "{", "[" * 100_000, "null", "[]", json.dumps({"Descriptor": {}}),
    json.dumps(_entry("amd64")),                      # no layer
    json.dumps(_entry("amd64", -1, 5)),
    json.dumps(_entry("amd64", True, 5)),
    json.dumps(_entry("amd64", "5")),
    json.dumps(_entry("amd64", 1 << 45)),             # past what is believed
    json.dumps(_entry("amd64", *([1] * 1001))),       # more layers than any image
    " " * (MANIFEST_LIMIT + 1) + json.dumps(_entry("amd64", 5)),
])
def test_a_hostile_manifest_answer_is_no_size(answer):
    assert download_size(answer, ("linux", "amd64")) is None
