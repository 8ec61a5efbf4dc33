"""The palette reads in the user's language (Textual's own entries and placeholder too),
and in --watch describes only what is there (no recipes)."""

from __future__ import annotations

from polling import eventually_async, pausing
from textual.command import CommandInput, CommandList

from tui.support import make_app, palette_search
from tui.test_snapshots_i18n import language


def _listed(app) -> str:
    options = app.screen.query_one(CommandList)
    return "\n".join(str(options.get_option_at_index(i).prompt)
                     for i in range(options.option_count))


async def test_the_palette_is_translated() -> None:
    with language("ru") as support:
        app = support.make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await support.palette_search(pilot, "Тем")
            assert app.screen.query_one(CommandInput).placeholder == "Поиск команд…"
            await eventually_async(lambda: "Тема" in _listed(app), look=pausing(pilot))
            assert "Theme" not in _listed(app)


async def test_the_watch_palette_does_not_mention_the_recipes() -> None:
    app = make_app(watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await palette_search(pilot, "Refresh")
        await eventually_async(lambda: "check health now" in _listed(app), look=pausing(pilot))
        assert "recipe" not in _listed(app)
