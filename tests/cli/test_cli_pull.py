"""``sparktui pull`` on real sshd + dockerd test nodes and Debian's docker-registry:
``--json`` is NDJSON whose byte counts end done == total; without a terminal and without
``--yes`` it refuses (exit 3) and nothing moves; an untrusted pair is exit 3 too."""

from __future__ import annotations

import json

import pytest
from polling import eventually
from pull_support import clean_refs, image_recipe, moved_bytes, push  # noqa: F401
from registry_support import registry  # noqa: F401  (the fixture)
from site_support import interrupt, sparktui_process

from sparktui.cli import main

pytestmark = pytest.mark.hosts


def test_pull_json_is_ndjson_with_transfers_done_at_the_end(site, registry, clean_refs,  # noqa: F811
                                                            capsys):
    s = site(2)
    node1, node2 = s.hosts.node("node1"), s.hosts.node("node2")
    clean_refs += [node1, node2]
    ref, image = push(node2, registry, "org/cli-pull", "cli-pull")
    image_recipe(s, ref, 2)
    s.hosts.trust_nodes()
    capsys.readouterr()
    assert main(s.cli("pull", "toy", "--image-only", "--json", "--yes")) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    transfers = [line for line in lines if "kind" in line]
    steps = [line for line in lines if "step" in line]
    assert lines[-1]["result"] == "pulled" and lines[-1]["image"] == ref
    assert {t["node"] for t in transfers} == {"node1", "node2"}
    last = {t["node"]: t for t in transfers}
    assert all(t["done"] == t["total"] > 0 for t in last.values()), last
    assert last["node1"]["source"] == "registry" and last["node2"]["source"] == "node1"
    assert {s["step"] for s in steps} == {"pull_image"}
    assert any(isinstance(s["detail"], dict) and s["detail"]["code"] == "pull_said.copied"
               for s in steps)
    assert node1.image_id(ref) == node2.image_id(ref) == image


def test_pull_without_a_terminal_or_yes_refuses_and_moves_nothing(site, clean_refs,  # noqa: F811
                                                                 capsys):
    s = site(2)
    node1, node2 = s.hosts.node("node1"), s.hosts.node("node2")
    clean_refs += [node1, node2]
    ref = "sparktest-pull/cli-headless:v1"
    node2.add_image(ref, variant="cli-headless")
    image_recipe(s, ref, 2)
    s.hosts.trust_nodes()
    assert main(s.cli("pull", "toy")) == 3
    err = capsys.readouterr().err
    assert "--yes" in err, err
    assert moved_bytes([node1, node2]) == [] and node1.image_id(ref) is None


def test_pull_between_untrusting_nodes_is_refused(site, clean_refs, capsys):  # noqa: F811
    s = site(2)
    node1, node2 = s.hosts.node("node1"), s.hosts.node("node2")
    clean_refs += [node1, node2]
    ref = "sparktest-pull/cli-untrusted:v1"
    node2.add_image(ref, variant="cli-untrusted")
    image_recipe(s, ref, 2)
    assert main(s.cli("pull", "toy", "--image-only", "--yes")) == 3
    err = capsys.readouterr().err
    assert "node2" in err and "node1" in err and "sparktui pull --help" in err, err
    assert moved_bytes([node1, node2]) == []


def test_ctrl_c_ends_the_copy_and_leaves_nothing_tagged(site, clean_refs):  # noqa: F811
    s = site(2)
    node1, node2 = s.hosts.node("node1"), s.hosts.node("node2")
    clean_refs += [node1, node2]
    ref = "sparktest-pull/cli-interrupted:v1"
    node2.add_image(ref, variant="cli-interrupted")
    image_recipe(s, ref, 2)
    s.hosts.trust_nodes()
    node1.hold_docker_load()  # the copy is under way, and stays so until the test says
    proc = sparktui_process(*s.cli("pull", "toy", "--image-only", "--json", "--yes"))
    try:
        eventually(lambda: node1.docker_loads_held() == 1, what="the copy reached node1")
        assert node2.processes(r"docker save"), "the source's pipeline runs"
        code, err = interrupt(proc)
    finally:
        node1.release_docker_load()
        if proc.poll() is None:
            proc.kill()
    assert code == 130, err
    # the source's pipeline ended with its channel; the target's load got a cut archive
    eventually(lambda: not node2.processes(r"docker save|dd bs=|ssh -T"),
               what="the source's pipeline ended")
    eventually(lambda: not node1.processes(r"docker load"), what="the target's load ended")
    assert node1.image_id(ref) is None
