"""The dashboard on the real engine and the real test hosts: it shows what runs, and
``--watch`` can make no mutating call whatever is pressed."""

from __future__ import annotations

import asyncio

from lookalike import Why
from polling import eventually_async
from site_support import toy_recipe

from sparktui.cli import main
from tui.dashboard_support import dashboard_app, table_text

# A look-alike, not the real vLLM (tests/lookalike.py): a serve per test under the dashboard; 2-node
# group.
LOOKALIKE = (Why.SPEED, Why.MULTI_NODE)

MUTATING = {"run", "stop", "rm", "exec", "kill", "restart", "start", "pull"}


def test_dashboard_shows_the_running_containers_and_the_head(site):
    s = site(2)
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0
    app = dashboard_app(s, watch=False, refresh_seconds=0.5)

    async def look() -> str:
        async with app.run_test(size=(160, 48)) as pilot:
            await eventually_async(lambda: table_text(app).count("running") == 2,
                                   settle=pilot.pause)
            return table_text(app)

    text = asyncio.run(look())
    assert "node1" in text and "node2" in text
    assert main(s.cli("stop", "--yes")) == 0


def test_watch_mode_makes_no_mutating_call_whatever_is_pressed(site):
    s = site(2)
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0
    before = {n: len(s.hosts.recorded_docker(n)) for n in ("node1", "node2")}
    app = dashboard_app(s, watch=True, refresh_seconds=0.5)
    keys = [*"abcdefghijklmnoprstuvwxyz0123456789", "enter", "space", "tab", "escape",
            "slash", "question_mark", "colon", "ctrl+p", "ctrl+d", "ctrl+x", "delete",
            "up", "down", "left", "right", "escape", "escape"]

    async def press_everything() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await eventually_async(lambda: "running" in table_text(app), settle=pilot.pause)
            for key in keys:
                await pilot.press(key)
                await pilot.pause(0.02)
                for _ in range(3):  # close what a key opened (help, palette, filter)
                    if app.screen is app.dashboard:
                        break
                    await pilot.press("escape")
                assert app.screen is app.dashboard
            await pilot.pause(1.0)

    asyncio.run(press_everything())
    for node in ("node1", "node2"):
        new = s.hosts.recorded_docker(node)[before[node]:]
        assert new, "the dashboard polled the node"
        assert not [a for a in new if a[1] in MUTATING], new
        assert s.hosts.ssh(node, "docker ps --format '{{.Names}}'").stdout.split() == [
            "sparktui-toy"]
    assert main(s.cli("stop", "--yes")) == 0
