"""The dashboard's serve goes through the same memory fit as the CLI's: on the real
engine and the sshd test hosts, a model too big for the nodes (DeepSeek-V3's index,
688 GB; the nodes report this machine's real MemTotal) is refused at preflight, the
progress view shows each node's numbers, and nothing is started."""

from __future__ import annotations

import asyncio
import json

from engine.test_fit import DEEPSEEK_TOTAL, mem_total, recipe, snapshot
from lookalike import Why
from polling import eventually_async

from sparktui.plan.render import render
from sparktui.tui.screens.progress import ProgressScreen
from tui.dashboard_support import dashboard_app
from tui.test_dashboard_actions import NODES, _docker_runs, _press_serve

# A look-alike, not the real vLLM (tests/lookalike.py): a 688 GB model's fit to a node's (GPU)
# memory; 2-node TP group.
LOOKALIKE = (Why.GPU, Why.MULTI_NODE)


def test_the_dashboards_serve_is_refused_by_the_fit_with_its_numbers(site, tmp_path):
    assert mem_total() * 0.9 < DEEPSEEK_TOTAL / 2, "this machine holds DeepSeek-V3 at TP 2"
    cache = tmp_path / "hf"
    s = site(2, extra_toml=f'[mount_aliases]\nhf_cache = "{cache}"\n')
    snap = snapshot(cache, "deepseek-ai/DeepSeek-V3", "deepseek-v3")
    (snap / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {"total_size": DEEPSEEK_TOTAL}}))
    s.recipe("ds", recipe("deepseek-ai/DeepSeek-V3", ["--max-model-len", "8192"]))
    app = dashboard_app(s)

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await eventually_async(lambda: "test" in app.dashboard.health, settle=pilot.pause)
            await _press_serve(app, pilot, render(s.plan("ds"), "text"))
            await eventually_async(lambda: app.flows.run.result is not None, settle=pilot.pause)
            await pilot.pause(0.2)
            assert isinstance(app.screen, ProgressScreen)
            shown = str(app.screen.query_one("#progress-failure-text").render())
            return app.flows.run, shown

    run, shown = asyncio.run(go())
    assert run.result.failed_step == "fit"
    assert run.outcome() == f"serve failed on {run.result.failed_node} at memory fit"
    assert {(r.step, r.node, r.state) for r in run.rows() if r.step == "fit"} == {
        ("fit", n, "failed") for n in NODES}
    for node in NODES:
        assert f"{node}: does not fit: weights 320.6" in shown.replace("\n", " ")
    assert "Nothing was started on the cluster." in shown
    for node in NODES:
        assert _docker_runs(s, node) == []
