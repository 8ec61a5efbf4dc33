"""The command palette has an entry for every key binding of the app, the dashboard and
its panes, and its pane entries act on their pane."""

from __future__ import annotations

from polling import eventually_async, pausing
from textual.binding import Binding

from sparktui.tui.actions import SAME_AS, palette_specs
from sparktui.tui.app import SparkApp
from sparktui.tui.screens.dashboard import DashboardScreen
from sparktui.tui.screens.recipe_form import RecipeNameScreen
from sparktui.tui.widgets.logs import LogsPane
from sparktui.tui.widgets.nodes import NodesPane
from sparktui.tui.widgets.recipes import RecipesPane
from tui.support import make_app, palette_search

TARGETS = {SparkApp: "app", DashboardScreen: "screen", LogsPane: "logs", RecipesPane: "recipes",
           NodesPane: "nodes"}
NOT_IN_PALETTE = {
    "command_palette",  # the palette itself
    "quit",  # Textual's own palette entry ("Quit the application")
    "select_cursor", "select",  # enter on a list line: "Details" and "Go to plan" are there
}


def _bound(app: SparkApp) -> set[tuple[str, str, str]]:
    """(class, target, action) for every binding sparktui declares on the dashboard."""
    classes = {type(app), *(type(w) for w in app.dashboard.query("*")), type(app.dashboard)}
    found = set()
    for cls in classes:
        for klass in cls.__mro__:
            if not klass.__module__.startswith("sparktui.") or "BINDINGS" not in vars(klass):
                continue
            for binding in vars(klass)["BINDINGS"]:
                assert isinstance(binding, Binding)
                target, action = TARGETS.get(klass, klass.__name__), binding.action
                if action.startswith("app."):
                    target, action = "app", action[4:]
                if action.split("(")[0] not in NOT_IN_PALETTE:
                    found.add((klass.__name__, target, action))
    return found


async def test_every_binding_has_a_palette_entry():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        offered = {(s.target.value, s.action_text) for s in palette_specs()} | {
            (target.value, action) for target, action in SAME_AS}
        bound = _bound(app)
        assert {"power", "follow", "wrap", "save", "edit", "duplicate"} <= {a for _c, _t, a
                                                                           in bound}
        missing = sorted(b for b in bound if (b[1], b[2]) not in offered)
        assert missing == [], missing
        titles = {s.title for s in palette_specs()}
        assert {"Power on", "Power off", "Switch to this cluster"} <= titles


async def _run_from_palette(pilot, query: str) -> None:
    await palette_search(pilot, query)
    await pilot.press("enter")
    await pilot.pause(0.2)


async def test_pane_entries_act_on_their_pane():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        logs = app.dashboard.logs
        assert not logs.wrap
        await _run_from_palette(pilot, "logs: wrap")
        assert logs.wrap and app.focused is logs.view  # the pane came into view
        level = logs.level
        await _run_from_palette(pilot, "logs: level")
        assert logs.level != level
        await _run_from_palette(pilot, "recipe: duplicate")
        await eventually_async(lambda: isinstance(app.screen, RecipeNameScreen),
                               look=pausing(pilot))


async def test_watch_palette_has_the_logs_entries_but_no_recipe_edits():
    app = make_app(watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await palette_search(pilot, "recipe")
        from textual.command import CommandList

        commands = app.screen.query_one(CommandList)
        titles = [str(commands.get_option_at_index(i).prompt).split("\n")[0]
                  for i in range(commands.option_count)]
        assert not any(t.startswith("Recipe") for t in titles), titles
        await pilot.press("escape")
        await _run_from_palette(pilot, "logs: wrap")
        assert app.dashboard.logs.wrap


async def test_keys_is_listed_once():
    """Textual's own "Keys" entry duplicated our "Help: keys" (#29 item 18); its Quit,
    Theme and Screenshot stay."""
    from textual.command import CommandList

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await palette_search(pilot, "keys")
        commands = app.screen.query_one(CommandList)
        titles = [str(commands.get_option_at_index(i).prompt).split("\n")[0]
                  for i in range(commands.option_count)]
        assert [t for t in titles if "keys" in t.lower()] == ["Help: keys"], titles
        await pilot.press("escape")
        await palette_search(pilot, "quit")
        commands = app.screen.query_one(CommandList)
        assert commands.option_count >= 1
