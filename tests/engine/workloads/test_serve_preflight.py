"""serve's preflight says what is true before anything starts (#29 items 7 and 8): a node
whose docker cannot give ``--gpus all`` (its dockerd has no NVIDIA hook) is refused with
the node and the fix, not docker's raw error at launch; an image that is missing on a node
is named with the commands that put it there. Nothing is created on any node."""

from __future__ import annotations

import asyncio
import shlex

from lookalike import Why
from site_support import Recorder, toy_recipe

from sparktui.cli import main

# A look-alike, not the real vLLM (tests/lookalike.py): no NVIDIA hook for --gpus all, refused at
# preflight; 2-node groups.
LOOKALIKE = (Why.GPU, Why.MULTI_NODE)


def _serve(s, name: str):
    rec = Recorder()

    async def go():
        engine = s.engine()
        try:
            return await engine.serve(s.plan(name), rec)
        finally:
            await engine.close()

    return asyncio.run(go()), rec


def _nothing_on(s, *nodes: str) -> None:
    for node in nodes:
        assert s.hosts.ssh(node, "docker ps -a --format '{{.Names}}'").stdout.split() == []
        assert not [a for a in s.hosts.recorded_docker(node) if a[:2] == ["docker", "run"]]


def test_a_node_without_the_nvidia_hook_is_refused_at_preflight(fresh_site, capsys):
    s = fresh_site(2)
    s.recipe("toy", toy_recipe())
    s.hosts.node("node2").without_gpu_runtime()  # the real dockerd, no hook on its PATH
    result, rec = _serve(s, "toy")
    assert not result.ok and result.failed_step == "preflight", result
    assert result.failed_node == "node2", result
    assert "node2" in str(result.detail) and "--gpus all" in str(result.detail)
    assert "nvidia-container-toolkit" in str(result.detail)  # the fix
    assert "sudo systemctl restart docker" in str(result.detail)
    assert ("node1", "preflight") in rec.steps("ok")  # the node with the hook passed
    assert not [e for e in rec.events if e.step == "launch"]
    _nothing_on(s, "node1", "node2")  # the probes left nothing, nothing was launched
    assert main(s.cli("serve", "toy")) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "node2" in err and "nvidia-container-toolkit" in err
    _nothing_on(s, "node1", "node2")


def test_an_image_missing_on_one_node_of_two_names_it_and_how_to_get_it_there(site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe())
    node2 = s.hosts.node("node2")
    node2.remove_image("vllm:test")
    result, rec = _serve(s, "toy")
    assert not result.ok and result.failed_step == "preflight" and result.failed_node == "node2"
    failed = [e for e in rec.events if e.state == "failed"]
    assert [e.node for e in failed] == ["node2"], failed  # node1 has it: not named
    pull = shlex.join(["docker", "pull", "vllm:test"])
    copy = "docker save vllm:test | " + shlex.join(
        ["ssh", "-p", str(node2.port), f"{s.hosts.user}@{node2.addr}", "docker", "load"])
    assert f"on node2, {pull}" in str(result.detail), str(result.detail)
    assert f"from node1, which has it: {copy}" in str(result.detail), str(result.detail)
    _nothing_on(s, "node1", "node2")
    assert main(s.cli("serve", "toy")) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and copy in err and pull in err
    assert "sparktui pull toy --cluster test puts the image and the model" in err


def test_a_docker_that_does_not_answer_offers_no_pull(fresh_site, capsys):
    """A pull would not fix it (nothing is known missing): no pull is offered."""
    s = fresh_site(2)
    s.recipe("toy", toy_recipe())
    s.hosts.node("node2").docker_down()
    assert main(s.cli("serve", "toy")) == 1
    assert "sparktui pull" not in capsys.readouterr().err


def test_an_image_missing_everywhere_is_only_pulled(site):
    s = site(2)
    s.recipe("toy", toy_recipe())
    for node in ("node1", "node2"):
        s.hosts.node(node).remove_image("vllm:test")
    result, rec = _serve(s, "toy")
    assert not result.ok and result.failed_step == "preflight"
    assert sorted(e.node for e in rec.events if e.state == "failed") == ["node1", "node2"]
    assert "docker pull vllm:test" in str(result.detail) and "docker save" not in str(result.detail)
    assert "node1" in str(result.detail) and "node2" in str(result.detail)


def test_a_docker_that_does_not_answer_is_not_an_image_missing(fresh_site):
    s = fresh_site(2)
    s.recipe("toy", toy_recipe())
    s.hosts.node("node2").docker_down()
    result, _rec = _serve(s, "toy")
    assert not result.ok and result.failed_step == "preflight" and result.failed_node == "node2"
    assert ("whether image vllm:test is present is unknown: docker on node2 does not answer"
            in str(result.detail)), str(result.detail)
    assert "docker pull" not in str(result.detail) and "not present" not in str(result.detail)


def test_a_node_whose_gpu_driver_does_not_answer_is_refused_at_preflight(site, capsys):
    """The hook is there but fails (the stub does when nvidia-smi fails on its node, as
    the real one does without a working driver): doctor fails the node, so does serve."""
    s = site(2)
    s.recipe("toy", toy_recipe())
    s.hosts.node("node1").set_gpu(fail=True)
    result, rec = _serve(s, "toy")
    assert not result.ok and result.failed_step == "preflight", result
    assert result.failed_node == "node1" and ("node2", "preflight") in rec.steps("ok")
    assert "`--gpus all` does not work on node1" in str(result.detail), str(result.detail)
    assert "driver not loaded" in str(result.detail) and "nvidia-smi on node1" in str(result.detail)
    _nothing_on(s, "node1", "node2")


def test_an_image_without_true_is_not_refused_for_its_gpus(site):
    """The probe runs ``true``; an image without it (distroless, scratch) fails only after
    the GPU hook has run (runc looks the command up after the prestart hooks), so that
    failure says the GPUs were given: the serve goes on, and fails at launch for what is
    really wrong (here: no engine in the image)."""
    s = site(1)
    s.hosts.ssh("node1", "tar -cf - -T /dev/null | docker import - notrue:1").check_returncode()
    s.recipe("bare", toy_recipe(nodes=1).replace('docker_image = "vllm:test"',
                                                 'docker_image = "notrue:1"'))
    result, rec = _serve(s, "bare")
    assert not result.ok and result.failed_step == "launch", result
    assert ("node1", "preflight") in rec.steps("ok")
    assert '"vllm"' in str(result.detail) and '"true"' not in str(result.detail), str(result.detail)
    # what the launch created is removed; the probe left nothing either
    assert s.hosts.ssh("node1", "docker ps -aq").stdout.split() == []
    # and the hook does run first: without a working driver, the same image is refused
    s.hosts.node("node1").set_gpu(fail=True)
    result, _rec = _serve(s, "bare")
    assert result.failed_step == "preflight" and "driver not loaded" in str(result.detail), result
    assert s.hosts.ssh("node1", "docker ps -aq").stdout.split() == []
