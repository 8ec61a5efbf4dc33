"""Pulling from the dashboard on real sshd + dockerd test hosts: a serve refused because
node2 lacks the recipe's image offers ``P`` on its progress view; ``P`` asks behind a
fresh health check (nothing to type: nothing is started or stopped), then the image is
copied from node1 and the model downloaded once from a real Hub server (olah) by the real
huggingface_hub in that image, the bytes per node shown as they move. ``--watch`` has no
``P``.

The test nodes share this machine's file system, so the configured ``hf_cache`` is one
folder for both (see tests/cli/test_cli_pull_model.py)."""

from __future__ import annotations

import asyncio

import pytest
from hosts.testimage import real_vllm
from hub_support import olah, use_hub
from polling import eventually_async

from sparktui.config.loader import load_config
from sparktui.engine.api import PullKind
from sparktui.tui.actions import Action
from sparktui.tui.screens.confirm import ConfirmScreen
from sparktui.tui.screens.progress import ProgressScreen
from sparktui.tui.screens.serve_plan import ServePlanScreen
from tui.dashboard_support import dashboard_app
from tui.support import click

pytestmark = pytest.mark.hosts
__all__ = ["olah"]  # the fixture, used by name
FILES: dict[str, bytes | str] = {"config.json": '{"model_type": "llama"}',
                                 "model.safetensors": bytes(range(256)) * 2048}


def _site(site, olah, monkeypatch):
    real_vllm.required()
    s = site(2)
    real_vllm.install(s.hosts.node("node1"))  # node2 lacks the recipe's image
    with s.config_path.open("a") as f:
        f.write(f'\n[mount_aliases]\nhf_cache = "{s.root / "hf-shared"}"\n')
    s.loaded = load_config(s.config_path)
    olah.add("pull/tui", FILES)
    use_hub(monkeypatch, olah.url)
    s.recipe("m", f'engine = "vllm"\ndocker_image = "{real_vllm.REF}"\nmodel = "pull/tui"\n'
                  'port = 30073\nrequired_nodes = 2\ntensor_parallel_size = 2\n')
    s.hosts.trust_nodes()
    return s


def test_a_serve_refused_for_a_missing_image_offers_the_pull_that_fixes_it(
        site, olah, monkeypatch):
    s = _site(site, olah, monkeypatch)
    app = dashboard_app(s)

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await eventually_async(lambda: app.dashboard.health.get("test") is not None,
                                   settle=pilot.pause)
            assert app.dashboard.recipes.select("m")
            await pilot.press("s")
            assert isinstance(app.screen, ServePlanScreen)
            await click(pilot, "#serve-ok")
            await eventually_async(lambda: app.flows.run is not None
                                   and app.flows.run.result is not None, settle=pilot.pause)
            serve = app.flows.run
            assert isinstance(app.screen, ProgressScreen) and serve.offers_pull
            await pilot.press("P")
            await eventually_async(lambda: isinstance(app.screen, ConfirmScreen),
                                   settle=pilot.pause)
            screen = app.screen
            assert app.flows.run is serve  # nothing runs before the confirmation
            await eventually_async(lambda: screen.health is not None, settle=pilot.pause)
            assert not screen.typed_required
            await click(pilot, "#confirm-ok")
            await eventually_async(lambda: app.flows.run is not serve
                                   and app.flows.run.result is not None, 240,
                                   settle=pilot.pause)
            return serve, app.flows.run

    serve, pull = asyncio.run(go())
    assert serve.result.failed_step == "preflight" and serve.result.failed_node == "node2"
    assert pull.action is Action.PULL and pull.result.ok, pull.result
    seen = {(kind, node): row.latest for (kind, node), row in pull.transfers.seen.items()}
    image = seen[(PullKind.IMAGE, "node2")]
    assert image.source == "node1" and image.done == image.total > 0
    model = seen[(PullKind.MODEL, "node1")]
    assert model.source == "hub" and model.done == model.total > 0
    node1, node2 = s.hosts.node("node1"), s.hosts.node("node2")
    assert node2.image_id(real_vllm.REF) == node1.image_id(real_vllm.REF)


def test_watch_mode_has_no_pull(site):
    s = site(2)
    s.recipe("m", f'engine = "vllm"\ndocker_image = "{real_vllm.REF}"\nmodel = "org/toy"\n'
                  'required_nodes = 2\ntensor_parallel_size = 2\n')
    app = dashboard_app(s, watch=True)

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await eventually_async(lambda: app.dashboard.health.get("test") is not None,
                                   settle=pilot.pause)
            assert app.dashboard.recipes.select("m")
            await pilot.press("P")
            await pilot.pause()
            return app.screen, app.flows.run if app._flows is not None else None

    screen, run = asyncio.run(go())
    assert not isinstance(screen, ConfirmScreen) and run is None
