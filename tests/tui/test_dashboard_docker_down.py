"""The dashboard over a node whose docker is down (#29 item 4): enter, i, X, D and the
stop confirmation say "unknown: docker on node1 does not answer", never that nothing
runs, nothing is there, nothing supervises or nothing serves. A real dockerd taken
down (as tests/engine/drivers/test_docker_faults.py does)."""

from __future__ import annotations

import asyncio

from polling import eventually_async
from textual.widgets import Static

from sparktui.tui.screens.confirm import ConfirmScreen
from sparktui.tui.screens.details import DetailsScreen
from tui.dashboard_support import dashboard_app

UNKNOWN = "unknown: docker on node1 does not answer"


def _blind(app) -> bool:
    health = app.dashboard.health.get("test") if app.dashboard else None
    return health is not None and health.nodes[0].docker_error is not None


def _notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


def test_enter_i_x_d_and_stop_say_docker_does_not_answer(fresh_site):
    s = fresh_site(1)
    s.hosts.node("node1").docker_down()
    app = dashboard_app(s)

    async def go() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await eventually_async(lambda: _blind(app), settle=pilot.pause)
            assert app.dashboard.health["test"].supervision.state == "none"
            await pilot.press("3")  # the nodes pane
            await pilot.press("enter")
            await eventually_async(lambda: isinstance(app.screen, DetailsScreen),
                                   settle=pilot.pause)
            body = app.screen.body.plain
            assert UNKNOWN in body and "No sparktui workload" not in body, body
            await pilot.press("escape")
            await eventually_async(lambda: app.screen is app.dashboard, settle=pilot.pause)

            await pilot.press("i")
            await eventually_async(lambda: _notes(app), settle=pilot.pause)
            assert _notes(app) == [UNKNOWN]
            app.clear_notifications()
            await pilot.press("X")
            await eventually_async(lambda: _notes(app), settle=pilot.pause)
            assert _notes(app) == [f"what supervises test is {UNKNOWN}"]
            app.clear_notifications()
            await pilot.press("D")
            await eventually_async(lambda: _notes(app), 120, settle=pilot.pause)
            assert _notes(app) == [f"deep check on test: {UNKNOWN}"]

            await pilot.press("x")
            screen = app.screen
            assert isinstance(screen, ConfirmScreen)
            await eventually_async(lambda: screen.health is not None, settle=pilot.pause)
            said = str(screen.query_one("#confirm-verdict", Static).render())
            assert "Nothing of test runs" not in said, said
            assert said.startswith(f"What runs on test is {UNKNOWN}."), said
            assert "Some nodes did not answer" in said
            await pilot.press("escape")

    try:
        asyncio.run(go())
    finally:
        s.hosts.node("node1").docker_up()
