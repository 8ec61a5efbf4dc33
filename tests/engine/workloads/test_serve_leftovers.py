"""A serve that fails at its launch leaves nothing behind, and says what is true: docker
creates the container before it fails to start it (an entrypoint that does not exist), and
that container is removed, in any state; a node without the NVIDIA hook for ``--gpus all``
is refused before anything is created."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from lookalike import Why
from site_support import Recorder, toy_recipe

from sparktui.cli import main
from sparktui.engine.api import ActionResult
from sparktui.tui.actions import Action
from sparktui.tui.screens.progress import serve_failure_note
from sparktui.tui.viewmodel.runs import ActionRun

# A look-alike, not the real vLLM (tests/lookalike.py): no NVIDIA hook for --gpus all; a serve per
# case; 2-node groups.
LOOKALIKE = (Why.GPU, Why.SPEED, Why.MULTI_NODE)

NO_ENTRYPOINT = ('entrypoint = ["vllm", "serve"]', 'entrypoint = ["no-such-engine"]')


def _serve(s, name: str, plan=None, **kw) -> tuple[ActionResult, Recorder]:
    rec = Recorder()

    async def go() -> ActionResult:
        engine = s.engine()
        try:
            return await engine.serve(plan or s.plan(name), rec, **kw)
        finally:
            await engine.close()

    return asyncio.run(go()), rec


def _note(result: ActionResult, rec: Recorder, recipe: str) -> str:
    run = ActionRun(1, Action.SERVE, "test", recipe, 0.0, events=list(rec.events), result=result)
    return serve_failure_note(run)


def _assert_removed_and_said(s, result: ActionResult, rec: Recorder, node: str,
                             recipe: str) -> None:
    assert not result.ok and result.failed_step == "launch", result
    assert s.hosts.node(node).containers() == {}
    assert (node, "rollback") in rec.steps("ok")
    note = _note(result, rec, recipe)
    assert "Nothing was started" not in note
    assert f"sparktui-{recipe} ({node})" in note and "Removed" in note


def test_an_entrypoint_that_does_not_exist_leaves_no_created_container(site, capsys):
    s = site(1)
    s.recipe("noent", toy_recipe(nodes=1).replace(*NO_ENTRYPOINT))
    for _attempt in range(2):  # the second serve is not refused for "already exists"
        result, rec = _serve(s, "noent", keep_on_failure=True)  # created, never run: gone
        _assert_removed_and_said(s, result, rec, "node1", "noent")
        assert "already exists" not in str(result.detail)
        assert not [e for e in rec.events if e.step == "left"]
        assert ("node1", "launch") in rec.steps("failed")
        assert _note(result, rec, "noent").startswith(
            "Removed what this serve had started: sparktui-noent (node1)")
    assert main(s.cli("serve", "noent")) == 1
    err = capsys.readouterr().err
    assert "already exists" not in err and "left running" not in err
    assert s.hosts.node("node1").containers() == {}


def test_the_started_worker_and_the_created_head_are_both_removed(site) -> None:
    """Two nodes: the worker starts (its entrypoint exists), the head's is created and
    fails; both are gone and the note says removed."""
    s = site(2)
    s.recipe("half", toy_recipe().replace(*NO_ENTRYPOINT))
    plan = s.plan("half")
    assert plan.start_order[-1] == plan.head.name  # the head goes last, after the worker
    worker = next(n for n in plan.nodes if n.name != plan.head.name)
    argv = list(worker.launch)
    at = argv.index("vllm:test")  # the worker runs sleep 600 in place of its engine
    argv[at:] = ["--entrypoint", "sleep", "vllm:test", "600"]
    nodes = [replace(n, launch=argv) if n.name == worker.name else n for n in plan.nodes]
    result, rec = _serve(s, "half", plan=replace(plan, nodes=nodes))
    assert not result.ok and result.failed_node == plan.head.name, result
    assert (worker.name, "launch") in rec.steps("ok")
    for node in (n.name for n in plan.nodes):
        assert s.hosts.node(node).containers() == {}, node
        assert (node, "rollback") in rec.steps("ok")
    assert _note(result, rec, "half") == ("Removed what this serve had started: "
                                          "sparktui-half (node1), sparktui-half (node2).")


def test_a_node_without_the_nvidia_hook_is_refused_before_anything_is_created(fresh_site):
    """Its docker would create the container, then fail to start it: the preflight asks
    its dockerd first (test_serve_preflight.py), so no node has anything to remove."""
    s = fresh_site(2)
    s.recipe("toy", toy_recipe())
    s.hosts.node("node1").without_gpu_runtime()  # the head, started after node2's worker
    for _attempt in range(2):  # the second serve is not refused for "already exists"
        result, rec = _serve(s, "toy")
        assert result.failed_step == "preflight" and result.failed_node == "node1", result
        assert "gpu" in str(result.detail).lower() and "already exists" not in str(result.detail)
        assert not [e for e in rec.events if e.step in ("launch", "rollback", "left")]
        assert _note(result, rec, "toy").startswith("Nothing was started")
        for node in ("node1", "node2"):
            assert s.hosts.node(node).containers() == {}
