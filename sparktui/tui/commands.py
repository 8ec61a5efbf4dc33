"""Command palette: the dashboard's commands that make sense right now.

The entries are the commands of :mod:`sparktui.tui.actions` that have a palette title.
Each is checked with its owner's ``check_action`` before it is offered, so ``--watch``
never lists a mutating command; :func:`offers` then drops what cannot work now, by the
same rule its key applies (serve without a fitting recipe, tmux without a session). A
pane's entry first brings the pane into view, so what it does is seen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING

from textual.app import SystemCommand
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.dom import DOMNode

from sparktui.i18n import N_, _
from sparktui.tui.actions import Spec, Target, palette_specs
from sparktui.tui.markup import esc

if TYPE_CHECKING:
    from sparktui.tui.app import SparkApp


TEXTUAL_WORDS = (
    N_("Theme"), N_("Change the current theme"), N_("Quit"),
    N_("Quit the application as soon as possible"), N_("Keys"),
    N_("Hide the keys and widget help panel"),
    N_("Show help for the focused widget and a summary of available keys"),
    N_("Minimize"), N_("Minimize the widget and restore to normal size"), N_("Maximize"),
    N_("Maximize the focused widget"), N_("Screenshot"),
    N_("Save an SVG 'screenshot' of the current screen"), N_("Search for commands…"),
)
"""Textual's own palette words (textual 8.2, app.py and command.py): translated when shown,
so the palette reads in one language. A word a later Textual changes shows as it is."""


OURS_ALREADY = frozenset({"Keys"})
"""Textual's palette entries an entry of ours offers already ("Help: keys"): the palette
listed Keys twice."""


def system_commands(commands: Iterable[SystemCommand]) -> Iterator[SystemCommand]:
    """Textual's palette entries (theme, quit, screenshot...) in the user's language,
    without those ours duplicate."""
    for command in commands:
        if command.title not in OURS_ALREADY:
            yield command._replace(title=_(command.title), help=_(command.help))


PANES = {Target.LOGS, Target.RECIPES, Target.NODES}


def offers(app: SparkApp, spec: Spec) -> bool:
    """Whether the palette lists an app command now (after ``check_action``): the rule
    its key applies too (``Spec.when``)."""
    return app.dashboard is None or spec.unavailable(app.now()) is None


class SparkCommands(Provider):
    """Actions and 'go to cluster' entries, filtered by ``check_action``."""

    @property
    def spark(self) -> SparkApp:
        return self.app  # type: ignore[return-value]

    _listed: list[tuple[str, str, Callable[[], object]]] | None = None

    def _target(self, target: Target) -> DOMNode | None:
        app, dashboard = self.spark, self.spark.dashboard
        if target is Target.APP:
            return app
        if dashboard is None or dashboard not in app.screen_stack:
            return None
        if target is Target.SCREEN:
            return dashboard
        if target is Target.RECIPES and dashboard.watch_mode:
            return None
        if target is Target.NODES:
            return dashboard.nodes
        return dashboard.logs if target is Target.LOGS else dashboard.recipes

    async def startup(self) -> None:
        """What the palette lists is decided once, when it opens (a keystroke only
        filters it: no plan is built per keystroke)."""
        self._listed = list(self._commands())

    def _commands(self) -> Iterator[tuple[str, str, Callable[[], object]]]:
        app = self.spark
        for spec in palette_specs():
            target = self._target(spec.target)
            if target is None or target.check_action(spec.action, spec.params) is False:
                continue
            if target is app and not offers(app, spec):  # e.g. tmux without a session
                continue
            watch = app.session.watch_mode and spec.watch_help
            yield (_(spec.title), _(spec.watch_help if watch else spec.help),
                   self._runner(spec, target))
        for name in app.cluster_names():
            yield (_("Cluster: {name}").format(name=esc(name)), _("show this cluster"),
                   partial(app.focus_cluster, name))

    def _runner(self, spec: Spec, target: DOMNode) -> Callable[[], object]:
        app = self.spark

        def run() -> object:
            if spec.target in PANES and app.dashboard is not None:
                app.dashboard.focus_pane(spec.target)  # see what the action does
            return app.run_action(spec.action_text, target)

        return run

    def _listing(self) -> list[tuple[str, str, Callable[[], object]]]:
        if self._listed is None:
            self._listed = list(self._commands())
        return self._listed

    async def discover(self) -> Hits:
        for title, help_text, callback in self._listing():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._listing():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
