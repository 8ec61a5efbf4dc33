"""Repaints that change nothing are skipped (widgets/paint.py, the footer's recompose),
and every change still reaches the screen."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Input, Static
from textual.widgets._footer import FooterKey

from sparktui.tui.widgets.footer import FittingFooter
from sparktui.tui.widgets.paint import same, show, show_line


def test_only_text_that_draws_the_same_is_the_same():
    assert same("a", "a") and not same("a", "b")
    assert same(Text("a", style="red"), Text("a", style="red"))
    assert not same(Text("a", style="red"), Text("a", style="blue"))  # rich's == says equal
    assert not same(Text("ab"), Text.assemble("a", ("b", "bold")))
    assert not same(Text("a", no_wrap=True), Text("a"))
    assert not same("a", Text("a")) and not same(Text("a"), object())


class _Lines(App[None]):
    def compose(self) -> ComposeResult:
        yield Static(id="line")


async def test_an_unchanged_text_is_not_drawn_again_and_a_changed_one_is():
    app = _Lines()
    async with app.run_test(size=(40, 3)) as pilot:
        line = app.query_one("#line", Static)
        calls: list[bool] = []
        update = line.update
        line.update = lambda content="", *, layout=True: (  # type: ignore[method-assign]
            calls.append(layout), update(content, layout=layout))
        show_line(line, Text("updated 4s ago"))
        show_line(line, Text("updated 4s ago"))
        show_line(line, Text("updated 5s ago"))  # same width: no layout
        show_line(line, Text("updated 10s ago"))
        show(line, Text("updated 10s ago"))
        await pilot.pause()
        assert calls == [True, False, True]
        assert "updated 10s ago" in line.render().plain  # type: ignore[union-attr]


class _Keys(App[None]):
    BINDINGS = [Binding("f1", "notify('a')", "alpha"), Binding("f2", "notify('b')", "beta")]

    def compose(self) -> ComposeResult:
        yield Input(id="one")
        yield Input(id="two")
        yield FittingFooter()


async def test_the_footer_keeps_its_keys_while_they_stay_and_shows_a_change():
    app = _Keys()
    async with app.run_test(size=(80, 5)) as pilot:
        await pilot.pause()
        first = [id(k) for k in app.query(FooterKey)]
        assert [k.description for k in app.query(FooterKey)][:2] == ["alpha", "beta"]
        await pilot.press("tab")  # the focus moves: the same keys, not mounted again
        await pilot.pause()
        assert [id(k) for k in app.query(FooterKey)] == first
        app.bind("f3", "notify('c')", description="gamma")
        app.screen.refresh_bindings()
        await pilot.pause()
        assert "gamma" in [k.description for k in app.query(FooterKey)]
