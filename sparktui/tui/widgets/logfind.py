"""Finding things in the logs pane: search with highlight (``/``, ``n``/``N``), the line
filter box (``&``), the first-error jump (``E``) and save (``ctrl+s``).

A mixin of :class:`sparktui.tui.widgets.logs.LogsPane`, which owns the buffers, the view
and the reactives (``search``, ``text_filter``, ``follow``) these methods read and set;
kept apart so the pane's file is about feeding and showing lines.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.widgets import Input

from sparktui.i18n import _, ngettext
from sparktui.tui.viewmodel.logtext import (
    NODE,
    entry_line,
    format_line,
    is_error_line,
    pick_match,
    save_log,
    search_pattern,
)
from sparktui.tui.widgets.logview import SYSTEM_NODE

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.containers import Vertical

    from sparktui.tui.viewmodel.logtext import Entry
    from sparktui.tui.widgets.logview import LogView

    class _Pane(Vertical):
        """What these methods read and set on ``LogsPane``, which defines all of it."""

        follow: bool
        search: str
        cluster: str
        clock: Callable[[], float]
        match_index: int | None
        saved_path: Path | None
        _anchor: int | None
        _indexed: list[tuple[int, int, int]] | None

        @property
        def view(self) -> LogView: ...

        def view_entries(self) -> list[Entry]: ...

        def _prefixes(self, tags: bool) -> tuple[dict[str, str], str]: ...

        def _update_labels(self) -> None: ...

    _Base = _Pane
else:
    _Base = object


class LogFinding(_Base):
    """Search, line filter, first error and save; mixed into ``LogsPane``."""

    # -- search -----------------------------------------------------------------------------

    def open_search(self) -> None:
        # Incremental search starts where the reader is: the top of the screen, or the
        # latest line while following.
        self._anchor = None if self.follow else round(self.view.scroll_y)
        box = self.query_one("#logs-search", Input)
        box.display = True
        box.focus()

    action_search = open_search

    def watch_search(self, search: str) -> None:
        if not self.is_mounted:
            return
        self.view.pattern = search_pattern(search)
        if not search:
            self.match_index = None
            self.view.unmark()
        else:
            self._jump(0, anchor=self._anchor)
        self.view.refresh()
        self._update_labels()

    def action_match(self, step: int) -> None:
        """``n`` (1) and ``N`` (-1); without a search, they open the search box."""
        if self.search:
            self._jump(step)
        else:
            self.open_search()

    def _jump(self, step: int, anchor: int | None = None) -> None:
        """Next (1) or previous (-1) match; 0: the first from line ``anchor`` (None: latest)."""
        matches = self.view.matches()
        if matches is not self._indexed:  # the lines changed: start from the screen
            self._indexed, self.match_index = matches, None
        if not matches:
            self.match_index = None
            self.view.unmark()
            self._update_labels()
            return
        if step and self.match_index is None:
            anchor = round(self.view.scroll_y)
        self.match_index = pick_match(matches, self.match_index, step, anchor)
        self._show(*matches[self.match_index])

    def _show(self, y: int, start: int, end: int) -> None:
        """Mark and scroll to a spot: the view pauses so it holds still under the reader."""
        self.follow = False
        self.view.show(y, start, end)
        self._update_labels()

    def action_first_error(self) -> None:
        """The first ERROR, traceback, CUDA out of memory or NCCL error line in view."""
        y = self.view.first_line(is_error_line)
        if y is None:
            self.notify(_("no error line in view"), timeout=3)
            return
        self.match_index = None
        self._show(y, self.view.prefix, len(self.view.text_at(y)))

    # -- text filter ------------------------------------------------------------------------

    def open_filter(self) -> None:
        box = self.query_one("#logs-filter", Input)
        box.display = True
        box.focus()

    action_filter = open_filter

    def action_clear(self) -> None:
        """Esc: close the box in focus; in the view, the search first, then the filter."""
        focused = self.screen.focused
        search = self.query_one("#logs-search", Input)
        if focused is search or (focused is not self.query_one("#logs-filter") and self.search):
            search.value = ""
            search.display = False
        else:
            self.action_close_filter()
        self.view.focus()

    def action_close_filter(self) -> None:
        box = self.query_one("#logs-filter", Input)
        box.value = ""
        box.display = False
        self.view.focus()

    # -- save -------------------------------------------------------------------------------

    def action_save(self) -> None:
        """The view's lines, each with its node tag, to a file in the current folder."""
        prefixes, _cont = self._prefixes(True)
        lines = [text for e in self.view_entries()
                 for text in format_line(entry_line(e), prefixes[e[NODE] or SYSTEM_NODE], "", 0)]
        try:
            path = save_log(lines, Path.cwd(), self.cluster or "logs", self.clock())
        except OSError as exc:
            self.notify(_("could not save the logs: {error}").format(error=exc),
                        severity="error")
            return
        self.saved_path = path
        self.notify(ngettext("saved {n} line to {path}", "saved {n} lines to {path}",
                             len(lines)).format(n=len(lines), path=path), timeout=6)
