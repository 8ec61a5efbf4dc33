"""The nodes table sorted by any column and filtered by name; the inspect view's text.
No hosts: constructed health and figures (tui/k9s_support.py)."""

from __future__ import annotations

from polling import eventually_async, pausing

from sparktui.scrub import STARS
from sparktui.tui.screens.inspect import inspect_text
from sparktui.tui.viewmodel.node_sort import COLUMNS, NodeOrder
from tui.k9s_support import SECRET, described, show_four
from tui.support import make_app, open_and_type


def _order(app) -> list[str]:
    return list(app.dashboard.nodes._row_nodes)


def _header(app) -> list[str]:
    return [str(c.label) for c in app.dashboard.nodes.table.columns.values()]


async def test_sorting_by_memory_and_gpu_and_filtering_by_name_change_the_rows():
    app = make_app(refresh_seconds=60)
    async with app.run_test(size=(120, 40)) as pilot:
        await show_four(pilot)
        await pilot.press("3")
        assert _order(app) == ["spark1", "spark2", "spark3", "spark4"]  # by rank
        assert not any("▲" in h or "▼" in h for h in _header(app))
        for _i in range(COLUMNS.index("mem")):
            await pilot.press("greater_than_sign")
        assert app.dashboard.nodes.order.column == "mem"
        assert _order(app) == ["spark2", "spark4", "spark1", "spark3"]  # most memory first
        assert "mem ▼" in app.dashboard.nodes.query_one("#nodes-telemetry").render().plain
        await pilot.press("less_than_sign")
        assert _order(app) == ["spark3", "spark1", "spark4", "spark2"]
        await pilot.press("greater_than_sign")  # gpu, busiest first
        assert _order(app) == ["spark3", "spark2", "spark1", "spark4"]
        # the cursor stays on its node (spark1, where it started), now the third row
        assert app.selection.node == "spark1" and app.dashboard.nodes.table.cursor_row == 2
        await open_and_type(pilot, "slash", *"zz")
        assert _order(app) == []  # no node named so
        await pilot.press("backspace", "backspace", *"RK2")  # case does not matter
        assert _order(app) == ["spark2"]
        telemetry = app.dashboard.nodes.query_one("#nodes-telemetry").render().plain
        assert "spark2" in telemetry and "spark3" not in telemetry
        await pilot.press("backspace", "backspace", "backspace")
        assert _order(app) == ["spark3", "spark2", "spark1", "spark4"]  # still by GPU
        await pilot.press("escape")  # clears the filter
        assert _order(app) == ["spark3", "spark2", "spark1", "spark4"]
        for _i in range(len(COLUMNS) - COLUMNS.index("gpu") + 1):
            await pilot.press("greater_than_sign")  # round to rank, then node
        assert app.dashboard.nodes.order.column == "node"
        assert "node ▲" in _header(app)


def test_the_order_wraps_and_turns():
    order = NodeOrder()
    assert order.plain and order.next(-1).column == COLUMNS[-1]
    assert order.next().turned().marker() == "▼" and order.next().marker() == "▲"
    assert NodeOrder("mem").descending() and not NodeOrder("mem", True).descending()


def test_the_inspect_text_masks_every_secret_and_shows_the_rest():
    text = inspect_text(described()).plain
    assert SECRET not in text and "sk-abcdef123456" not in text
    assert f"HF_TOKEN={STARS}" in text and f"OPENAI_API_KEY={STARS}" in text
    assert f"--hf-token '{STARS}'" in text  # the value found in the env, on the command line
    assert "VLLM_HOST_IP=192.168.100.11" in text and "sparktui.role = head" in text


async def test_watch_mode_has_inspect_and_sort_but_no_restart_or_shell():
    from sparktui.tui.actions import CHANGES_CLUSTER

    assert {"restart", "shell"} <= CHANGES_CLUSTER and "inspect" not in CHANGES_CLUSTER
    app = make_app(watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await eventually_async(lambda: app.dashboard is not None and app.dashboard.is_mounted,
                               look=pausing(pilot))
        assert app.check_action("restart", ()) is False
        assert app.check_action("shell", ()) is False
        assert app.check_action("inspect", ()) is True
        await pilot.press("R", "a")
        await pilot.pause()
        assert app.action_log == [] and app.screen is app.dashboard
