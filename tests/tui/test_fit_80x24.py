"""Every screen fits 80x24 in every language: no label cut.

The dashboard with each pane in focus, the help, the serve plan, the stop and restart
confirmations, the power menu, the exec dialog, the benchmark runs (two kept) and the
command palette, in each of the six languages,
at 80x24. A label is cut when its whole text is not on the screen: a footer key
(``s Ser▏``), a button, a pane's or a dialog's title, a tab. The screen's text is read
from what the compositor paints, row by row (the terminal's cells).
"""

from __future__ import annotations

import io

import pytest
from polling import eventually_async, pausing
from rich.console import Console
from textual.app import App
from textual.pilot import Pilot

from tui.test_snapshots_bench import kept  # noqa: F401  (the fixture: two kept runs)
from tui.test_snapshots_i18n import language

SIZE = (80, 24)
LANGUAGES = ["en", "de", "es", "fr", "it", "ru"]


def screen_rows(app: App) -> list[str]:
    """The terminal's rows as painted (the dimmed dashboard under a dialog included)."""
    console = Console(width=SIZE[0], height=SIZE[1], record=True, file=io.StringIO(),
                      color_system=None, legacy_windows=False)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text().splitlines()


def labels(app: App) -> list[str]:
    """The labels of the screen in front that must read whole."""
    from textual.widgets import Button, Tab
    from textual.widgets._footer import FooterKey

    screen = app.screen
    found = [f"{key.key_display} {key.description}".strip() for key in screen.query(FooterKey)]
    found += [str(b.label) for b in screen.query(Button) if b.display]
    found += [str(t.label.plain) for t in screen.query(Tab) if t.display]
    for widget in screen.query(".pane, .modal-box"):
        title = widget.border_title
        if title and widget.display and widget.region.area:
            found.append(str(title).replace("\\[", "["))
    return found


def laid_out(app: App) -> bool:
    """The footer of the screen in front has its keys placed (it recomposes after a
    change of focus or bindings: read before, the rows are the old footer's). A key
    that does not fit has no area: only the first one must."""
    from textual.widgets import Footer
    from textual.widgets._footer import FooterKey

    if not app.screen.query(Footer):
        return True
    keys = app.screen.query(FooterKey)
    return bool(keys) and keys.first().region.area > 0


async def cut(pilot: Pilot, where: str) -> list[str]:
    app = pilot.app
    await eventually_async(lambda: laid_out(app), look=pausing(pilot))
    await pilot.pause()
    rows = screen_rows(app)
    return [f"{where}: {label!r}" for label in labels(app)
            if not any(label in row for row in rows)]


def _kind(app: App) -> str:
    return type(app.screen).__name__


@pytest.mark.parametrize("code", LANGUAGES)
@pytest.mark.usefixtures("kept")
async def test_every_screen_fits_80x24(code: str) -> None:
    with language(code) as support:
        app = support.make_app(engine=support.RecordingEngine())
        problems: list[str] = []
        async with app.run_test(size=SIZE) as pilot:
            await eventually_async(lambda: app.dashboard is not None
                                   and app.dashboard.is_mounted, look=pausing(pilot))
            from sparktui.tui.messages import HealthUpdated

            app.dashboard.post_message(HealthUpdated(support.serving_health()))
            await pilot.pause(0.3)
            problems += await cut(pilot, "dashboard")
            for key, pane in zip("123456", ["clusters", "recipes", "nodes", "plan", "logs",
                                            "services"], strict=True):
                await pilot.press(key)
                await pilot.pause(0.2)
                problems += await cut(pilot, f"pane {pane}")
            await pilot.press("2")
            for key, dialog in [("question_mark", "HelpScreen"), ("s", "ServePlanScreen"),
                                ("x", "ConfirmScreen"), ("R", "ConfirmScreen"),
                                ("p", "PowerMenuScreen"), ("e", "ExecScreen"),
                                ("b", "BenchResultsScreen"), ("ctrl+p", "CommandPalette")]:
                await pilot.press(key)
                await eventually_async(lambda d=dialog: _kind(app) == d, look=pausing(pilot))
                if dialog == "ConfirmScreen":  # its fresh health check, then its verdict
                    await eventually_async(lambda: app.screen.health is not None,
                                           look=pausing(pilot))
                await pilot.pause(0.3)
                problems += await cut(pilot, dialog)
                await pilot.press("escape")
                await eventually_async(lambda: _kind(app) == "DashboardScreen",
                                       look=pausing(pilot))
        assert not problems, f"[{code}] cut at 80x24:\n" + "\n".join(problems)


async def test_a_cut_label_is_found() -> None:
    """The check itself: a footer key the screen cannot show whole is reported."""
    from textual.app import ComposeResult
    from textual.binding import Binding
    from textual.widgets import Footer

    class Narrow(App[None]):
        BINDINGS = [Binding(k, f"notify('{k}')", "a long description " + k)
                    for k in "abcdefgh"]

        def compose(self) -> ComposeResult:
            yield Footer()

    app = Narrow()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        found = await cut(pilot, "footer")
    assert found and all("a long description" in f for f in found)
