"""The logs pane on its own: fed with LogLine batches, no engine, no dashboard."""

from __future__ import annotations

from pathlib import Path

from polling import eventually_async, pausing
from textual.app import App, ComposeResult

import sparktui.tui
from sparktui.engine.status import LogLine
from sparktui.tui.messages import LogsArrived
from sparktui.tui.widgets.logs import LogsPane


class LogsHarness(App[None]):
    CSS_PATH = Path(sparktui.tui.__file__).parent / "app.tcss"

    def __init__(self, max_lines: int = 5000) -> None:
        super().__init__()
        self.max_lines = max_lines
        self.animation_level = "none"

    def compose(self) -> ComposeResult:
        yield LogsPane(self.max_lines, id="logs", classes="pane")

    def on_mount(self) -> None:
        self.pane.set_nodes(["spark1", "spark2"])

    @property
    def pane(self) -> LogsPane:
        return self.query_one(LogsPane)

    async def shown(self, pilot, count: int) -> None:
        """Wait for the 20 Hz flush to show ``count`` lines, scrolled to the end (a busy
        machine runs timers late: a fixed pause was not always enough)."""
        view = self.pane.view
        await eventually_async(lambda: view.line_count == count and view.is_vertical_scroll_end,
                               look=pausing(pilot))


async def scroll_back(pilot, pane, presses: int = 1) -> None:
    """``up`` until the pane pauses. On a loaded machine the scroll to the end that the
    last flush queued can land after the first press and undo it: press again then."""
    pane.view.focus()
    await eventually_async(lambda: pilot.app.focused is pane.view, look=pausing(pilot))
    await eventually_async(lambda: pane.view.max_scroll_y > 0,
                           look=pausing(pilot))  # laid out: up scrolls
    await pilot.press(*["up"] * presses)

    async def again() -> None:
        await pilot.pause(0.1)
        if pane.follow:
            await pilot.press("up")

    await eventually_async(lambda: not pane.follow, 30, "the pane paused", look=again)


def lines(node: str, count: int, start: int = 0, text: str = "line") -> list[LogLine]:
    return [LogLine(node, f"{text} {i}") for i in range(start, start + count)]


async def test_buffer_is_bounded_per_node():
    app = LogsHarness(max_lines=5000)
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.pane
        pane.post_message(LogsArrived("c", lines("spark1", 20_000)))
        pane.post_message(LogsArrived("c", lines("spark2", 10)))
        await pilot.pause(0.2)
        assert len(pane.buffers["spark1"]) == 5000
        assert pane.lines("spark1")[0].text == "line 15000"
        assert pane.lines("spark1")[-1].text == "line 19999"
        assert len(pane.buffers["spark2"]) == 10
        assert pane.view.line_count <= 5000 * 2
        assert pane.view.lines[-1].endswith("line 9")


async def test_many_small_batches_stay_bounded():
    app = LogsHarness(max_lines=500)
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.pane
        for batch in range(40):
            pane.add_lines(lines("spark1", 100, start=batch * 100))
            await pilot.pause(0.06)
        await pilot.pause(0.1)
        assert len(pane.buffers["spark1"]) == 500
        assert pane.view.line_count <= 500
        assert pane.view.lines[-1].endswith("line 3999")


async def test_merged_view_tags_each_line_with_its_node():
    app = LogsHarness()
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.pane
        pane.add_lines([LogLine("spark1", "a"), LogLine("spark2", "\x1b[31mb\x1b[0m"),
                        LogLine("spark1", "c")])
        await pilot.pause(0.1)
        assert list(pane.view.lines) == ["spark1 │ a", "spark2 │ b", "spark1 │ c"]
        assert [line.text for line in pane.lines()] == ["a", "\x1b[31mb\x1b[0m", "c"]


async def test_scrolling_up_pauses_and_f_resumes():
    app = LogsHarness()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.pane
        pane.add_lines(lines("spark1", 100))
        await app.shown(pilot, 100)
        assert pane.follow and pane.view.is_vertical_scroll_end
        await scroll_back(pilot, pane, presses=2)
        assert not pane.follow
        badge = pane.query_one("#logs-badge")
        assert badge.display
        before = pane.view.line_count
        scroll_y = pane.view.scroll_y
        pane.add_lines(lines("spark2", 7))
        await eventually_async(lambda: "+7 new lines" in str(badge.render()), look=pausing(pilot))
        assert pane.new_while_paused == 7
        assert "+7 new lines" in str(badge.render())
        assert pane.view.line_count == before  # the view holds still while paused
        assert pane.view.scroll_y == scroll_y
        await pilot.press("f")
        await eventually_async(lambda: pane.follow and not badge.display
                               and pane.view.line_count == before + 7, look=pausing(pilot))
        assert pane.follow and not badge.display
        assert pane.view.line_count == before + 7
        assert pane.view.is_vertical_scroll_end
        assert pane.new_while_paused == 0


async def test_scrolling_back_to_the_end_resumes():
    app = LogsHarness()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.pane
        pane.add_lines(lines("spark1", 100))
        await app.shown(pilot, 100)
        await scroll_back(pilot, pane)
        await pilot.press("end")
        await eventually_async(lambda: pane.follow, look=pausing(pilot))


async def test_pause_survives_more_lines_than_the_view_holds():
    app = LogsHarness(max_lines=50)
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.pane
        pane.add_lines(lines("spark1", 100))
        await app.shown(pilot, 50)
        await scroll_back(pilot, pane)
        pane.add_lines(lines("spark1", 500, start=100))
        assert pane.new_while_paused == 500
        await pilot.press("f")
        await eventually_async(lambda: pane.follow and pane.view.lines[-1].endswith("line 599"),
                               look=pausing(pilot))
        assert pane.view.line_count == 50
        assert pane.view.lines[-1].endswith("line 599")


async def test_wrap_toggle():
    app = LogsHarness()
    async with app.run_test(size=(60, 20)) as pilot:
        pane = app.pane
        pane.add_lines([LogLine("spark1", "x" * 150)])
        await pilot.pause(0.1)
        assert pane.view.line_count == 1
        pane.view.focus()
        await eventually_async(lambda: pilot.app.focused is pane.view, look=pausing(pilot))
        await pilot.press("w")
        await pilot.pause(0.1)
        assert pane.wrap
        assert pane.view.line_count > 1
        assert all(line.startswith(("spark1 │ ", "       │ ")) for line in pane.view.lines)
        await pilot.press("w")
        await pilot.pause(0.1)
        assert pane.view.line_count == 1


async def test_node_filter_cycles_all_then_each_node():
    app = LogsHarness()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.pane
        pane.add_lines([LogLine("spark1", "one"), LogLine("spark2", "two")])
        await pilot.pause(0.1)
        pane.view.focus()
        await eventually_async(lambda: pilot.app.focused is pane.view, look=pausing(pilot))
        await pilot.press("c")  # c cycles nodes; n is the next search match
        await pilot.pause(0.1)
        assert pane.node_filter == "spark1"
        assert list(pane.view.lines) == ["one"]
        pane.add_lines([LogLine("spark2", "three"), LogLine("spark1", "four")])
        await pilot.pause(0.1)
        assert list(pane.view.lines) == ["one", "four"]
        await pilot.press("c", "c")
        await pilot.pause(0.1)
        assert pane.node_filter is None
        assert len(pane.view.lines) == 4


async def test_text_filter():
    app = LogsHarness()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.pane
        pane.add_lines([LogLine("spark1", "INFO ok"), LogLine("spark2", "WARNING hot"),
                        LogLine("spark1", "warning cold")])
        await pilot.pause(0.1)
        pane.open_filter()
        await pilot.press(*"warn")
        await pilot.pause(0.1)
        assert pane.text_filter == "warn"
        assert list(pane.view.lines) == ["spark2 │ WARNING hot", "spark1 │ warning cold"]
        await pilot.press("escape")
        await pilot.pause(0.1)
        assert pane.text_filter == ""
        assert len(pane.view.lines) == 3


async def test_gap_marker_and_clear():
    app = LogsHarness()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.pane
        assert pane.query_one("#logs-empty").display
        pane.add_lines([LogLine("spark1", "before"), LogLine("spark1", "", gap=True)])
        await pilot.pause(0.1)
        assert not pane.query_one("#logs-empty").display
        assert "⋯" in pane.view.lines[-1]
        pane.clear()
        await pilot.pause(0.1)
        assert pane.view.line_count == 0 and not pane.buffers
        assert pane.query_one("#logs-empty").display
