"""``pull_image`` on real sshd + dockerd test nodes and Debian's docker-registry on
loopback (tests/registry_support.py): the image is pulled once from the registry by the
head and copied node to node (``docker save | ssh NODE docker load``), or copied from a
node that has it, or nothing moves; a pair that does not trust each other and a docker
that does not answer are refusals before any byte moves."""

from __future__ import annotations

import json

import pytest
from pull_support import clean_refs, image_recipe, moved_bytes, pull, push, verbs  # noqa: F401
from registry_support import registry  # noqa: F401  (the fixture)

from sparktui.engine.api import Source, StepState
from sparktui.plan.pull.image import PullSaid
from sparktui.said import Said

pytestmark = pytest.mark.hosts


def _codes(rec, state: str) -> list[tuple[str | None, PullSaid]]:
    return [(e.node, e.detail.code) for e in rec.events
            if e.state == state and isinstance(e.detail, Said)]


def _repo_digests(node, ref: str) -> list[str]:
    got = node.docker("image", "inspect", "--format", "{{json .RepoDigests}}", ref)
    assert got.returncode == 0, got.stderr
    return json.loads(got.stdout)


def test_an_image_nowhere_is_pulled_once_and_copied_to_the_others(site, registry,  # noqa: F811
                                                                  clean_refs):  # noqa: F811
    s = site(3)
    nodes = [s.hosts.node(f"node{i}") for i in (1, 2, 3)]
    clean_refs += nodes
    ref, image = push(nodes[2], registry, "org/pull-nowhere", "pull-nowhere")
    image_recipe(s, ref, 3)
    s.hosts.trust_nodes()
    result, rec, transfers = pull(s)
    assert result.ok, result
    assert [n.image_id(ref) for n in nodes] == [image] * 3
    # one node went to the registry: only the head holds the registry's digest; the
    # others were given the image by docker load, and nobody ran docker pull
    assert _repo_digests(nodes[0], ref) and not _repo_digests(nodes[1], ref) \
        and not _repo_digests(nodes[2], ref)
    assert "pull" not in verbs(nodes[0]) + verbs(nodes[1]) + verbs(nodes[2])
    assert "load" not in verbs(nodes[0])
    assert verbs(nodes[1]).count("load") == verbs(nodes[2]).count("load") == 1
    assert (nodes[0].name, PullSaid.PULLED) in _codes(rec, StepState.OK)
    assert {(n, c) for n, c in _codes(rec, StepState.OK) if c is PullSaid.COPIED} == \
        {("node2", PullSaid.COPIED), ("node3", PullSaid.COPIED)}
    last = {t.node: t for t in transfers}
    assert last["node1"].source == Source.REGISTRY and last["node1"].total > 0
    assert all(t.done == t.total > 0 for t in last.values()), last
    assert last["node2"].source == "node1"


def test_an_image_on_one_node_is_copied_without_the_registry(site, clean_refs):  # noqa: F811
    s = site(2)
    node1, node2 = s.hosts.node("node1"), s.hosts.node("node2")
    clean_refs += [node1, node2]
    ref = "sparktest-pull/on-one:v1"  # no registry has it: a pull would fail
    image = node2.add_image(ref, variant="pull-on-one")
    image_recipe(s, ref, 2)
    s.hosts.trust_nodes()
    result, rec, transfers = pull(s)
    assert result.ok, result
    assert node1.image_id(ref) == node2.image_id(ref) == image
    assert moved_bytes([node1, node2]) == ["node1:load", "node2:save"]
    assert ("node2", PullSaid.PRESENT) in _codes(rec, StepState.OK)
    assert {t.source for t in transfers} == {"node2"}
    assert transfers[-1].done == transfers[-1].total > 0


def test_a_node_without_room_for_the_image_is_refused_before_anything_moves(
        site, clean_refs):  # noqa: F811
    """node1's ``df`` says 1 MiB free (the test bed's df stand-in: the nodes share this
    machine's disk): the copy is refused with the figures, and nothing moves."""
    s = site(2)
    node1, node2 = s.hosts.node("node1"), s.hosts.node("node2")
    clean_refs += [node1, node2]
    ref = "sparktest-pull/no-room:v1"
    node2.add_image(ref, variant="pull-no-room")
    image_recipe(s, ref, 2)
    s.hosts.trust_nodes()
    node1.set_free_disk(1 << 20)
    result, _rec, transfers = pull(s)
    assert not result.ok and result.failed_node == "node1", result
    assert isinstance(result.detail, Said) and result.detail.code is PullSaid.DISK_SHORT
    text = str(result.detail)
    assert "node1 needs" in text and "1.0\xa0MiB free" in text and ref in text, text
    assert moved_bytes([node1, node2]) == [] and transfers == []
    assert node1.image_id(ref) is None


def test_an_image_everywhere_moves_nothing(site, clean_refs):  # noqa: F811
    s = site(2)
    node1, node2 = s.hosts.node("node1"), s.hosts.node("node2")
    clean_refs += [node1, node2]
    ref = "sparktest-pull/everywhere:v1"
    assert node1.add_image(ref) == node2.add_image(ref)  # the test bed's image: one ID
    image_recipe(s, ref, 2)
    result, _rec, transfers = pull(s)  # no trust needed: nothing is copied
    assert result.ok, result
    assert isinstance(result.detail, Said) and result.detail.code is PullSaid.NOTHING_TO_DO
    assert moved_bytes([node1, node2]) == [] and transfers == []


def test_nodes_that_do_not_trust_each_other_are_refused_before_anything_moves(
        site, registry, clean_refs):  # noqa: F811
    s = site(2)
    node1, node2 = s.hosts.node("node1"), s.hosts.node("node2")
    clean_refs += [node1, node2]
    ref, _image = push(node2, registry, "org/pull-untrusted", "pull-untrusted")
    image_recipe(s, ref, 2)  # nowhere: node1 would pull, then copy to node2
    result, rec, transfers = pull(s)
    assert [e.node for e in rec.events if e.state == StepState.FAILED] == ["node1"]
    assert not result.ok
    assert isinstance(result.detail, Said) and result.detail.code is PullSaid.UNTRUSTED
    assert result.detail.params["source"] == "node1"
    assert result.detail.params["target"] == "node2"
    text = str(result.detail)
    assert "node1" in text and "node2" in text and "sparktui pull --help" in text, text
    assert "Host key verification failed" in text, text
    assert moved_bytes([node1, node2]) == [] and transfers == []
    assert node1.image_id(ref) is None and node2.image_id(ref) is None  # nothing pulled


def test_a_node_whose_docker_does_not_answer_is_named_not_lacking(fresh_site):
    s = fresh_site(2)
    node1, node2 = s.hosts.node("node1"), s.hosts.node("node2")
    ref = "sparktest-pull/down:v1"
    node1.add_image(ref, variant="pull-down")
    image_recipe(s, ref, 2)
    s.hosts.trust_nodes()
    node2.docker_down()
    result, rec, transfers = pull(s)
    assert not result.ok and result.failed_node == "node2"
    assert isinstance(result.detail, Said) and result.detail.code is not PullSaid.COPIED
    assert "not present" not in str(result.detail)
    assert moved_bytes([node1, node2]) == [] and transfers == []
    assert [e.node for e in rec.events if e.state == StepState.FAILED] == ["node2"]


def test_a_target_whose_loaded_image_is_another_is_named(site, clean_refs):  # noqa: F811
    s = site(2)
    node1, node2 = s.hosts.node("node1"), s.hosts.node("node2")
    clean_refs += [node1, node2]
    ref = "sparktest-pull/swapped:v1"
    image = node2.add_image(ref, variant="pull-swapped")
    other = node1.add_image("sparktest-pull/other:v1", variant="pull-other")
    assert other != image
    node1.swap_after_load("sparktest-pull/other:v1", ref)  # its load answers with another
    image_recipe(s, ref, 2)
    s.hosts.trust_nodes()
    result, rec, _transfers = pull(s)
    assert not result.ok and result.failed_node == "node1"
    assert isinstance(result.detail, Said) and result.detail.code is PullSaid.ID_DIFFERS
    assert result.detail.params["got"] == other and result.detail.params["want"] == image
    assert (None, PullSaid.DONE) not in _codes(rec, StepState.OK)


def test_without_the_docker_api_the_head_pulls_with_the_cli_once(fresh_site, registry):  # noqa: F811
    s = fresh_site(2)
    node1, node2 = s.hosts.node("node1"), s.hosts.node("node2")
    node1.reconfigure("AllowStreamLocalForwarding no")  # no way to the docker socket
    ref, image = push(node2, registry, "org/pull-cli", "pull-cli")
    image_recipe(s, ref, 2)
    s.hosts.trust_nodes()
    result, _rec, transfers = pull(s)
    assert result.ok, result
    assert node1.image_id(ref) == node2.image_id(ref) == image
    pulls = [argv for argv in node1.recorded_docker() if argv[1:2] == ["pull"]]
    assert pulls == [["docker", "pull", "--quiet", ref]]  # one pull, by the head alone
    assert moved_bytes([node2]) == ["node2:load"]
    last = [t for t in transfers if t.node == "node1"][-1]  # said once, at the end
    assert last.source == Source.REGISTRY and last.done == last.total > 0


def test_a_head_without_room_for_the_registry_pull_is_refused_before_it_pulls(
        site, registry, clean_refs):  # noqa: F811
    """The registry says the layers' compressed size; the need is that unpacked (2.5x):
    a head with more free than the download but less than that is refused all the same."""
    s = site(2)
    node1, node2 = s.hosts.node("node1"), s.hosts.node("node2")
    clean_refs += [node1, node2]
    ref, _image = push(node2, registry, "org/pull-no-room", "pull-no-room")
    image_recipe(s, ref, 2)
    s.hosts.trust_nodes()
    manifest = node1.docker("manifest", "inspect", "--insecure", ref)
    download = sum(layer["size"] for layer in json.loads(manifest.stdout)["layers"])
    node1.set_free_disk(download * 2)
    result, _rec, transfers = pull(s)
    assert not result.ok and result.failed_node == "node1", result
    assert isinstance(result.detail, Said) and result.detail.code is PullSaid.DOWNLOAD_SHORT
    assert result.detail.params["download"] == download
    assert result.detail.params["need"] == int(download * 2.5)
    assert "pull" not in verbs(node1) and node1.image_id(ref) is None
    assert transfers == [] and moved_bytes([node1, node2]) == []
    # the head's own CLI asked the registry, as insecure as its daemon has it (loopback)
    asked = [argv for argv in node1.recorded_docker() if argv[1:2] == ["manifest"]]
    assert asked == [["docker", "manifest", "inspect", "-v", "--insecure", ref]]
    node1.set_free_disk(download * 3)  # room enough now: the same pull goes through
    result, _rec, _transfers = pull(s)
    assert result.ok, result
    assert node1.image_id(ref) == node2.image_id(ref) is not None


def test_a_registry_that_does_not_say_the_size_is_named_and_the_pull_still_asked(
        site, registry, clean_refs):  # noqa: F811
    """The CLI's registry client is not the daemon's (a mirror may serve the daemon
    alone): a manifest that cannot be read is a warning naming it, and the daemon is
    asked; here the registry has no such image, so its pull fails and says so."""
    s = site(2)
    node1 = s.hosts.node("node1")
    clean_refs += [node1]
    ref = f"{registry.addr}/org/nowhere-at-all:v1"
    image_recipe(s, ref, 2)
    s.hosts.trust_nodes()
    result, rec, _transfers = pull(s)
    assert not result.ok and result.failed_node == "node1", result
    assert result.detail.code is PullSaid.PULL_FAILED
    warned = [e.detail for e in rec.events if e.state == StepState.WARN and e.node == "node1"]
    assert [w.code for w in warned] == [PullSaid.DOWNLOAD_UNREAD], warned
    assert ref in str(warned[0]) and "manifest" in str(warned[0]), str(warned[0])
