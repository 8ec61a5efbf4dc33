"""Pinned images against a real registry (#32): the nodes pull ``REG/org/img:latest``
from Debian's ``docker-registry`` on loopback (tests/registry_support.py), so their
dockerds hold real RepoDigests; ``sparktui pin`` writes the digest they agree on into the
recipe (comments kept), refuses when they disagree or one cannot say, and serve warns
when the tag moved to another digest since the recipe's last serve on the cluster."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from bench_support import bench_setup, kept_runs
from lookalike import Why
from registry_support import Registry, registry  # noqa: F401  (the fixture)
from site_support import Recorder, toy_recipe

from sparktui.cli import main
from sparktui.plan.image_pin import PinSaid
from sparktui.said import Said

# A look-alike, not the real vLLM (tests/lookalike.py): a 2-node group is served, and the
# real one serves alone here, and the bench's rates are set; what is tested is the image's
# digest, not the engine.
LOOKALIKE = (Why.MULTI_NODE, Why.FIGURES)

COMMENT = "# the engine build we trust (pinned by sparktui pin)"


def _push(node, reg: Registry, variant: str) -> str:
    """A new image (its own label) pushed to REG/org/img:latest from ``node``; its digest."""
    ref = f"{reg.addr}/org/img:latest"
    node.add_image(ref, variant=variant)
    pushed = node.docker("push", ref, timeout=300)
    assert pushed.returncode == 0, pushed.stderr
    return _digest(node, ref)


def _pull(node, reg: Registry) -> str:
    ref = f"{reg.addr}/org/img:latest"
    pulled = node.docker("pull", ref, timeout=300)
    assert pulled.returncode == 0, pulled.stderr
    return _digest(node, ref)


def _digest(node, ref: str) -> str:
    got = node.docker("image", "inspect", "--format", "{{json .RepoDigests}}", ref)
    assert got.returncode == 0, got.stderr
    digests = json.loads(got.stdout)
    repo = ref.rsplit(":", 1)[0]
    (found,) = {d.split("@", 1)[1] for d in digests if d.startswith(repo + "@")}
    return found


@pytest.fixture
def clean_refs(registry):  # noqa: F811
    """The pooled daemons lose the registry's refs after the test (digests included)."""
    nodes: list = []
    yield nodes
    for node in nodes:
        got = node.docker("image", "ls", "--digests", "--format",
                          "{{.Repository}}@{{.Digest}} {{.Repository}}:{{.Tag}}")
        for line in got.stdout.split():
            if line.startswith(registry.addr) and not line.endswith(("@<none>", ":<none>")):
                node.docker("rmi", line)


def _recipe(s, reg: Registry) -> Path:
    text = toy_recipe().replace('docker_image = "vllm:test"',
                                f'{COMMENT}\ndocker_image = "{reg.addr}/org/img:latest"'
                                '  # the tag')
    return s.recipe("toy", text)


def test_pin_writes_the_digest_every_node_pulled(site, registry, clean_refs, capsys):  # noqa: F811
    s = site(2)
    node1, node2 = s.hosts.node("node1"), s.hosts.node("node2")
    clean_refs += [node1, node2]
    path = _recipe(s, registry)
    digest = _push(node1, registry, "pin-a")
    assert _pull(node1, registry) == _pull(node2, registry) == digest
    before = path.read_text()
    assert main(s.cli("pin", "toy", "--json")) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["digest"] == digest and out["written"] is True
    assert out["nodes"] == {"node1": digest, "node2": digest}
    after = path.read_text()
    pinned = f'docker_image = "{registry.addr}/org/img@{digest}"'
    assert pinned in after, after
    assert COMMENT in after and "# the tag" in after  # comments kept
    assert after.replace(pinned, "") == before.replace(
        f'docker_image = "{registry.addr}/org/img:latest"', "")  # nothing else changed
    # pinned again: the digest reference resolves on the nodes to the same digest
    assert main(s.cli("pin", "toy")) == 0
    assert path.read_text() == after


def test_pin_refuses_when_the_nodes_pulled_different_digests(site, registry, clean_refs,  # noqa: F811
                                                              capsys):
    s = site(2)
    node1, node2 = s.hosts.node("node1"), s.hosts.node("node2")
    clean_refs += [node1, node2]
    path = _recipe(s, registry)
    first = _push(node1, registry, "pin-b1")
    assert _pull(node1, registry) == first
    second = _push(node2, registry, "pin-b2")  # the tag moves; node1 keeps the old one
    assert first != second
    before = path.read_text()
    assert main(s.cli("pin", "toy")) == 3
    out = capsys.readouterr().out
    assert f"node1={first}" in out and f"node2={second}" in out, out
    assert path.read_text() == before


def test_pin_names_a_node_whose_docker_does_not_answer(fresh_site, registry, clean_refs,  # noqa: F811
                                                        capsys):
    s = fresh_site(2)
    node1, node2 = s.hosts.node("node1"), s.hosts.node("node2")
    clean_refs += [node1]
    path = _recipe(s, registry)
    _push(node1, registry, "pin-c")
    node2.daemon.kill()  # its dockerd is gone: no answer, which is not "no digest"
    before = path.read_text()
    assert main(s.cli("pin", "toy", "--json")) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["written"] is False and out["digest"] is None
    assert out["nodes"]["node2"]["code"] == "pin_said.no_answer", out
    assert out["nodes"]["node2"]["params"]["node"] == "node2"
    assert path.read_text() == before


def test_serve_warns_when_the_tag_moved_since_the_last_serve(site, registry, clean_refs,  # noqa: F811
                                                            capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # no earlier test's serve
    s = site(2)
    node1, node2 = s.hosts.node("node1"), s.hosts.node("node2")
    clean_refs += [node1, node2]
    _recipe(s, registry)
    first = _push(node1, registry, "pin-d1")
    _pull(node1, registry), _pull(node2, registry)

    def moved(rec: Recorder) -> list:
        return [e for e in rec.events if e.state == "warn" and isinstance(e.detail, Said)
                and e.detail.code is PinSaid.MOVED]

    def serve_and_stop() -> Recorder:
        rec = Recorder()

        async def go():
            engine = s.engine()
            try:
                result = await engine.serve(s.plan("toy"), rec)
                assert result.ok, result
                stopped = await engine.stop(s.plan("toy").cluster, Recorder(), recipe="toy")
                assert stopped.ok, stopped
            finally:
                await engine.close()

        asyncio.run(go())
        return rec

    first_serve = serve_and_stop()
    assert not moved(first_serve)  # the first serve: nothing to compare with
    resolved = [e for e in first_serve.events if isinstance(e.detail, Said)
                and e.detail.code is PinSaid.RESOLVED]
    assert [(e.state, e.detail.params["digest"]) for e in resolved] == [("ok", first)]
    second = _push(node1, registry, "pin-d2")
    assert _pull(node2, registry) == _pull(node1, registry) == second != first
    rec = serve_and_stop()
    warns = moved(rec)
    assert len(warns) == 1, rec.events
    text = str(warns[0].detail)
    assert first in text and second in text and "sparktui pin toy" in text, text
    assert not moved(serve_and_stop())  # the new digest is now the last one
    third = _push(node2, registry, "pin-d3")  # and the CLI's serve says it too
    assert _pull(node1, registry) == _pull(node2, registry) == third
    capsys.readouterr()
    assert main(s.cli("serve", "toy")) == 0
    said = "".join(capsys.readouterr())
    assert second in said and third in said and "sparktui pin toy" in said, said
    assert main(s.cli("stop", "--yes")) == 0
    kept = json.loads((tmp_path / "state" / "sparktui" / "images" / "test.json").read_text())
    assert kept == {"recipes": {"toy": {"image": f"{registry.addr}/org/img:latest",
                                        "digest": third}}}


def test_bench_keeps_the_digest_and_compare_names_a_moved_tag(site, registry, clean_refs,  # noqa: F811
                                                               tmp_path, monkeypatch, capsys):
    tokenizer = bench_setup(tmp_path, monkeypatch)
    s = site(2)
    node1, node2 = s.hosts.node("node1"), s.hosts.node("node2")
    clean_refs += [node1, node2]
    node1.set_engine(ttft=0.05, tpot=0.01)
    _recipe(s, registry)
    digests, ids = [], []
    for variant in ("pin-e1", "pin-e2"):
        digests.append(_push(node1, registry, variant))
        assert _pull(node1, registry) == _pull(node2, registry) == digests[-1]
        assert main(s.cli("serve", "toy")) == 0
        assert main(s.cli("bench", "toy", "--tokenizer", str(tokenizer), "--concurrency", "1",
                          "--requests", "8", "--input-tokens", "16",
                          "--output-tokens", "8")) == 0
        run = kept_runs(tmp_path)[-1]
        assert run["image_digest"] == digests[-1], run
        ids.append(run["id"])
        assert main(s.cli("stop", "--yes")) == 0
    capsys.readouterr()
    assert main(s.cli("bench", "--compare", *ids, "--json")) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"what": "image_digest", "before": digests[0], "after": digests[1]} \
        in data["changes"], data["changes"]
