"""The logs pane when several recipes run on one cluster: lines tagged ``node/recipe``
(the engine tags them so), ``c`` shows a node's lines of every recipe, then each
recipe's on each node."""

from __future__ import annotations

from polling import eventually_async, pausing

from sparktui.engine.status import LogLine
from tui.test_logs import LogsHarness


async def test_node_filter_then_recipe_filter():
    app = LogsHarness()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.pane
        pane.add_lines([LogLine("spark1/qwen", "q1"), LogLine("spark1/oss", "o1"),
                        LogLine("spark2/qwen", "q2"), LogLine("spark1/qwen", "q3")])
        await eventually_async(lambda: pane.view.line_count == 4, look=pausing(pilot))
        assert [line.split("│")[0].strip() for line in pane.view.lines] == [
            "spark1/qwen", "spark1/oss", "spark2/qwen", "spark1/qwen"]
        pane.view.focus()
        await eventually_async(lambda: pilot.app.focused is pane.view, look=pausing(pilot))
        await pilot.press("c")
        await eventually_async(lambda: pane.node_filter == "spark1", look=pausing(pilot))
        await eventually_async(lambda: pane.view.line_count == 3, look=pausing(pilot))
        assert [line.split("│")[-1].strip() for line in pane.view.lines] == ["q1", "o1", "q3"]
        assert "spark1/oss" in pane.view.lines[1]  # two recipes in the view: still tagged
        await pilot.press("c", "c")  # spark2, then the first recipe source
        await eventually_async(lambda: pane.node_filter == "spark1/qwen", look=pausing(pilot))
        await eventually_async(lambda: list(pane.view.lines) == ["q1", "q3"], look=pausing(pilot))
        await pilot.press("c")
        await eventually_async(lambda: pane.node_filter == "spark1/oss", look=pausing(pilot))
        await eventually_async(lambda: list(pane.view.lines) == ["o1"], look=pausing(pilot))
        pane.add_lines([LogLine("spark1/oss", "o2"), LogLine("spark1/qwen", "q4")])
        await eventually_async(lambda: list(pane.view.lines) == ["o1", "o2"], look=pausing(pilot))
