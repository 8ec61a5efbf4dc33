"""A footer key removed on a change of focus is freed (#31 item 6).

Each footer key binds the footer's ``compact`` (Textual's ``data_bind``), and the footer
dropped a removed key from its watchers only when ``compact`` next changed by assignment:
never, in ours. Every change of focus left ~25 keys behind with their styles and strips,
and under a log flood each full collection scanned them all (the p95 of a key press)."""

from __future__ import annotations

import gc

from polling import eventually_async, pausing
from textual.widgets._footer import FooterKey

from tui.support import make_app


def _loose_keys() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, FooterKey) and not o.is_attached)


async def test_keys_of_earlier_focuses_are_freed():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        dashboard = app.dashboard
        assert dashboard is not None
        for _ in range(20):  # the logs pane's keys, then the clusters pane's: a new footer
            await pilot.press("5")
            await eventually_async(lambda: app.focused is dashboard.logs.view, look=pausing(pilot))
            await pilot.press("1")
            await eventually_async(lambda: app.focused is dashboard.clusters_pane.cluster_tree,
                                   look=pausing(pilot))
        await pilot.pause()
        shown = len(app.screen.query(FooterKey))
        assert shown > 5  # the footer is there, and changed 40 times
        assert _loose_keys() < shown  # not 40 footers' worth (~1,000) kept alive
