"""A serve whose launch fails after docker created the container (an entrypoint that
does not exist; on a Spark without the NVIDIA runtime, ``--gpus all``) leaves nothing
behind and says what is true. Before, the container stayed in state Created: the
dashboard said "Nothing was started on the cluster." over a nodes pane showing it, and
the next serve refused ("already exists… stop it first"). Real sshd and dockerd."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from site_support import Recorder, toy_recipe

from sparktui.cli import main
from sparktui.engine.api import ActionResult
from sparktui.plan.model import LaunchPlan
from sparktui.tui.screens.progress import serve_failure_note
from sparktui.tui.viewmodel.runs import ActionRun

NO_ENTRYPOINT = ('entrypoint = ["vllm", "serve"]', 'entrypoint = ["no-such-engine"]')


def _serve(s, plan: LaunchPlan, **kw) -> tuple[ActionResult, Recorder]:
    rec = Recorder()

    async def go() -> ActionResult:
        engine = s.engine()
        try:
            return await engine.serve(plan, rec, **kw)
        finally:
            await engine.close()

    return asyncio.run(go()), rec


def _note(result: ActionResult, rec: Recorder, recipe: str) -> str:
    run = ActionRun(1, "serve", "test", recipe, 0.0, events=list(rec.events), result=result)
    return serve_failure_note(run)


def test_a_created_container_is_removed_even_when_kept_on_failure(site, capsys) -> None:
    s = site(1)
    s.recipe("noent", toy_recipe(nodes=1).replace(*NO_ENTRYPOINT))
    for _attempt in range(2):  # the second serve is not refused for "already exists"
        result, rec = _serve(s, s.plan("noent"), keep_on_failure=True)  # never ran: nothing to keep
        assert not result.ok and result.failed_step == "launch", result
        assert "already exists" not in result.detail, result.detail
        assert s.hosts.node("node1").containers() == {}
        assert ("node1", "rollback") in rec.steps("ok")
        assert ("node1", "launch") in rec.steps("failed")
        note = _note(result, rec, "noent")
        assert "Nothing was started" not in note, note
        assert note.startswith("Removed what this serve had started: sparktui-noent (node1)")
    assert main(s.cli("serve", "noent")) == 1
    err = capsys.readouterr().err
    assert "already exists" not in err, err
    assert s.hosts.node("node1").containers() == {}


def test_the_started_worker_and_the_created_head_are_both_removed(site) -> None:
    """Two nodes: the worker starts (its entrypoint exists), the head's is created and
    fails; both are gone and the note says removed."""
    s = site(2)
    recipe = toy_recipe().replace(*NO_ENTRYPOINT)
    s.recipe("half", recipe)
    plan = s.plan("half")
    assert plan.start_order[-1] == plan.head.name  # the head goes last, after the worker
    worker = next(n for n in plan.nodes if n.name != plan.head.name)
    argv = list(worker.launch)
    at = argv.index("vllm:test")  # the worker runs sleep 600 in place of its engine
    argv[at:] = ["--entrypoint", "sleep", "vllm:test", "600"]
    nodes = [replace(n, launch=argv) if n.name == worker.name else n for n in plan.nodes]
    result, rec = _serve(s, replace(plan, nodes=nodes))
    assert not result.ok and result.failed_node == plan.head.name, result
    assert (worker.name, "launch") in rec.steps("ok")
    for node in (n.name for n in plan.nodes):
        assert s.hosts.node(node).containers() == {}, node
        assert (node, "rollback") in rec.steps("ok")
    assert _note(result, rec, "half") == ("Removed what this serve had started: "
                                          "sparktui-half (node1), sparktui-half (node2).")

