"""The model pull's pure decisions: the Hub's listing checked as untrusted, the bytes a
node lacks against its free space, the node that downloads and the copy rounds."""

from __future__ import annotations

import json

import pytest

from sparktui.plan.pull.model import (
    HubFile,
    ModelSaid,
    PullRefused,
    Snapshot,
    complete,
    disk_refusal,
    download_node,
    fan_out,
    lacking,
    link_target,
    parse_files,
    parse_free,
    parse_listing,
    parse_present,
)

SHA1 = "a" * 40
SHA256 = "b" * 64


def _listing(names, sha=SHA1) -> bytes:
    return json.dumps({"sha": sha, "siblings": [{"rfilename": n} for n in names]}).encode()


@pytest.mark.parametrize("name", ["../x", "a/../../x", "/etc/passwd", "a//b", "./a", "a/",
                                  "a\\b", "a\nb", "-rf", ".hidden/..", "a\x1b[31m", ""])
def test_a_file_path_that_is_no_plain_relative_path_is_refused_naming_it(name):
    with pytest.raises(PullRefused) as refused:
        parse_listing(_listing(["config.json", name]), "o/m", "main")
    assert refused.value.said.code is ModelSaid.BAD_PATH


def test_plain_paths_and_the_commit_are_taken():
    commit, names = parse_listing(_listing(["config.json", "sub dir/x-1.safetensors"]),
                                  "o/m", "main")
    assert commit == SHA1 and names == ["config.json", "sub dir/x-1.safetensors"]


@pytest.mark.parametrize("sha", [None, "main", "A" * 40, "a" * 41])
def test_no_commit_is_refused(sha):
    with pytest.raises(PullRefused) as refused:
        parse_listing(_listing(["a"], sha), "o/m", "main")
    assert refused.value.said.code is ModelSaid.BAD_COMMIT


def _info(entry) -> bytes:
    return json.dumps([{"path": "w.safetensors", "type": "file"} | entry]).encode()


@pytest.mark.parametrize(("entry", "code"), [
    ({"oid": SHA1, "size": -1}, ModelSaid.BAD_SIZE),
    ({"oid": SHA1, "size": True}, ModelSaid.BAD_SIZE),
    ({"oid": SHA1, "size": "10"}, ModelSaid.BAD_SIZE),
    ({"oid": SHA1, "size": 1 << 41}, ModelSaid.BAD_SIZE),
    ({"oid": "../../x", "size": 1}, ModelSaid.BAD_HASH),
    ({"oid": SHA1, "size": 1, "lfs": {"oid": SHA1, "size": 1}}, ModelSaid.BAD_HASH),
    ({"oid": SHA1, "size": 1, "lfs": {"oid": SHA256, "size": -5}}, ModelSaid.BAD_SIZE),
])
def test_a_size_or_hash_out_of_bounds_is_refused(entry, code):
    with pytest.raises(PullRefused) as refused:
        parse_files(_info(entry), "o/m", "main", SHA1, ["w.safetensors"])
    assert refused.value.said.code is code


def test_an_lfs_file_is_named_by_its_sha256_and_another_by_its_git_sha1():
    snap = parse_files(_info({"oid": SHA1, "size": 3, "lfs": {"oid": SHA256, "size": 9}}),
                       "o/m", "main", SHA1, ["w.safetensors"])
    assert snap.files == (HubFile("w.safetensors", 9, SHA256, True),)
    snap = parse_files(_info({"oid": SHA1, "size": 3}), "o/m", "main", SHA1, ["w.safetensors"])
    assert snap.files == (HubFile("w.safetensors", 3, SHA1, False),)


def _snap() -> Snapshot:
    return Snapshot("o/m", "main", SHA1, (HubFile("a", 10, "1" * 40, False),
                                         HubFile("d/b", 90, "2" * 64, True)))


def test_a_node_lacks_what_is_not_verified_there_and_is_refused_when_short():
    snap = _snap()
    assert [f.path for f in lacking(snap, {"1" * 40})] == ["d/b"]
    assert disk_refusal("n1", "/c", 90, 89, "o/m").params["need"] == 90
    assert disk_refusal("n1", "/c", 90, 90, "o/m") is None
    assert disk_refusal("n1", "/c", 0, None, "o/m") is None
    assert disk_refusal("n1", "/c", 1, None, "o/m").code is ModelSaid.DISK_UNREAD


def test_the_node_holding_most_downloads_else_the_head():
    snap = _snap()
    assert download_node(["h", "w1", "w2"], {}, snap) == "h"
    assert download_node(["h", "w1", "w2"], {"w2": {"2" * 64}, "w1": {"1" * 40}}, snap) == "w2"


def test_copies_double_the_holders_each_round():
    assert fan_out("a", ["b", "c", "d", "e", "f"]) == [
        [("a", "b")], [("a", "c"), ("b", "d")], [("a", "e"), ("b", "f")]]
    assert fan_out("a", []) == []


def test_the_snapshot_link_is_relative_as_huggingface_hub_writes_it():
    assert link_target("config.json", "x") == "../../blobs/x"
    assert link_target("a/b/c.json", "x") == "../../../../blobs/x"


def test_what_a_node_says_is_bounded():
    blobs = _snap().blobs
    lines = [f"{'1' * 40} 10", f"{'2' * 64}.sparktui-download 40", "evil 5", f"{'2' * 64} 1e9",
             f".{'2' * 64}.Ab12Cd 50"]
    assert parse_present(lines, blobs) == {"1" * 40: 10, "2" * 64: 50}
    assert complete(lines, blobs) == {"1" * 40}
    assert parse_free("/dev/x 100 50 4096 2% /") == 4096
    assert parse_free("/dev/x 100 50 -1 2% /") is None
    assert parse_free("garbage") is None
