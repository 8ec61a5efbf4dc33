"""The logs pane: Toolong's ideas on Textual's ``Log``.

* Lines arrive in batches (``LogsArrived`` or :meth:`LogsPane.add_lines`) and go to a bounded
  buffer per node (``deque(maxlen=...)``) plus a pending list; a timer writes the pending
  lines with one ``Log.write_lines`` call at most ``FLUSH_HZ`` times a second.
* Follow/pause is one reactive: scrolling up pauses, new lines then only count in a
  "+N new lines" badge, ``f`` resumes.
* The view (merged with node tags, or one node; wrap; a level and a text filter) is a
  function of the buffers, so changing it re-renders from them. Each line's level is read
  once, on arrival (``logtext.classify``), and kept with it.
* Search (``/``, ``n``/``N``), the first-error jump (``E``) and save (``ctrl+s``) work on
  the view (``logfind.LogFinding``, mixed in); matches are styled only as visible lines
  are drawn (``LogView``).
"""

from __future__ import annotations

import heapq
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.events import Resize
from textual.reactive import reactive
from textual.widgets import Input, Static

from sparktui.engine.api import LogLine, in_source
from sparktui.i18n import _, ngettext
from sparktui.tui.actions import Target, bindings
from sparktui.tui.markup import esc
from sparktui.tui.messages import LogsArrived, RawLine
from sparktui.tui.viewmodel.logtext import (
    INFO,
    LEVEL,
    LEVEL_CHOICES,
    LEVEL_LABELS,
    NODE,
    TEXT,
    WARNING,
    Entry,
    classify,
    entry_line,
    format_line,
)
from sparktui.tui.widgets.logfind import LogFinding
from sparktui.tui.widgets.logview import SEP, SYSTEM_NODE, LogView, TagHighlighter
from sparktui.tui.widgets.paint import show

DEFAULT_MAX_LINES = 5000
FLUSH_HZ = 20
TAG_STYLES = ("bold cyan", "bold magenta", "bold green", "bold yellow", "bold blue",
              "bold red")
__all__ = ["SEP", "Entry", "LogView", "LogsPane"]


class LogsPane(LogFinding, Vertical):
    """Logs of the cluster in focus, merged with node tags or one node at a time."""

    BINDINGS = bindings(Target.LOGS)

    follow: reactive[bool] = reactive(True)
    wrap: reactive[bool] = reactive(False)
    node_filter: reactive[str | None] = reactive(None)
    text_filter: reactive[str] = reactive("")
    level: reactive[int] = reactive(0)
    """Lowest level shown (0: every line); ``v`` cycles ``LEVEL_CHOICES``."""
    search: reactive[str] = reactive("")

    def __init__(self, max_lines_per_node: int = DEFAULT_MAX_LINES, *,
                 clock: Callable[[], float] = time.time, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.max_lines_per_node = max_lines_per_node
        self.buffers: dict[str, deque[Entry]] = {}
        self.node_order: list[str] = []
        self.new_while_paused = 0
        self.cluster = ""
        """Names the saved file; the dashboard sets it."""
        self.clock = clock
        self.match_index: int | None = None
        self._indexed: list[tuple[int, int, int]] | None = None  # what match_index points in
        self._last_level: dict[str, int] = {}
        self._anchor: int | None = None
        self.saved_path: Path | None = None
        self._pending: list[Entry] = []
        self._stale = False
        self._seq = 0
        self._highlighter = TagHighlighter()
        self._empty_text = _("No log lines yet.")

    def compose(self) -> ComposeResult:
        search = Input(placeholder=_("search (Enter keeps, n/N next/previous, Esc clears)"),
                       id="logs-search", classes="filter")
        search.display = False
        yield search
        box = Input(placeholder=_("filter log lines (Enter keeps, Esc clears)"),
                    id="logs-filter", classes="filter")
        box.display = False
        yield box
        view = LogView(highlight=True, id="logs-view")
        view.highlighter = self._highlighter
        yield Static(self._empty_text, id="logs-empty")
        yield view
        yield Static(id="logs-badge")

    def on_mount(self) -> None:
        self.set_interval(1 / FLUSH_HZ, self.flush)
        self._update_labels()

    @property
    def view(self) -> LogView:
        return self.query_one(LogView)

    # -- feeding --------------------------------------------------------------------------

    def set_nodes(self, names: Iterable[str]) -> None:
        """The nodes of the cluster in focus, in rank order (tags and ``c`` follow it)."""
        self.node_order = list(names)
        for i, name in enumerate(self.node_order):
            self._highlighter.styles[name] = TAG_STYLES[i % len(TAG_STYLES)]
        self._highlighter.styles[SYSTEM_NODE] = "bold red"

    def set_empty_text(self, text: str) -> None:
        """What the pane says while no line has arrived."""
        self._empty_text = text
        if self.is_mounted:
            self.query_one("#logs-empty", Static).update(text)

    def add_lines(self, lines: Iterable[RawLine]) -> None:
        """Buffer a batch (the hot path under a flood: reactives are read once, not per line)."""
        if not self.buffers and self.is_mounted:
            self.query_one("#logs-empty").display = False
        last_level, buffers, pending = self._last_level, self.buffers, self._pending
        keep = self._predicate()
        seq = self._seq
        shown = len(pending)
        for origin, text, gap in lines:
            seq += 1
            node = origin or SYSTEM_NODE
            if gap:
                level = WARNING
            else:
                level = last_level[node] = classify(text, last_level.get(node, INFO))
            entry = (seq, level, origin, text, gap)
            buf = buffers.get(node)
            if buf is None:
                buf = buffers[node] = deque(maxlen=self.max_lines_per_node)
                self._highlighter.styles.setdefault(node, TAG_STYLES[
                    len(self._highlighter.styles) % len(TAG_STYLES)])
            buf.append(entry)
            if keep is None or keep(entry):
                pending.append(entry)
        self._seq = seq
        follow = self.follow
        if not follow:
            self.new_while_paused += len(pending) - shown
        if len(pending) > self._view_capacity():
            # More arrived than the view can hold: rebuild from the buffers instead.
            pending.clear()
            self._stale = True
        if not follow:
            self._update_labels()

    @on(LogsArrived)
    def _on_logs_arrived(self, message: LogsArrived) -> None:
        message.stop()
        self.add_lines(message.lines)

    def clear(self) -> None:
        self.buffers.clear()
        self._last_level.clear()
        self._pending.clear()
        self._stale = False
        self.new_while_paused = 0
        self.view.clear()
        self.query_one("#logs-empty").display = True
        self._update_labels()

    def flush(self) -> None:
        """Write what arrived since the last flush; nothing while paused."""
        if not self.follow or not self.is_mounted:
            return
        if self._stale:
            self.rerender()
            return
        if not self._pending:
            return
        entries, self._pending = self._pending, []
        self._write(entries)

    # -- the view -------------------------------------------------------------------------

    def lines(self, node: str | None = None) -> list[LogLine]:
        """The buffered lines of one node, or all merged in arrival order."""
        return [entry_line(e) for e in self._merged(node)]

    def view_entries(self) -> list[Entry]:
        """The entries the view shows (node, level and text filters), oldest first."""
        keep = self._predicate()
        entries = [e for e in self._merged(self.node_filter) if keep is None or keep(e)]
        return entries[-self._view_capacity():]

    def rerender(self) -> None:
        view = self.view
        view.quiet = True
        try:
            view.clear()
            self._pending.clear()
            self._stale = False
            self._write(self.view_entries())
            view.scroll_end(animate=False, immediate=True, x_axis=False)
        finally:
            view.quiet = False

    def _write(self, entries: list[Entry]) -> None:
        view = self.view
        view.max_lines = self._view_capacity()
        width = self._wrap_width() if self.wrap else 0
        filt = self.node_filter
        prefixes, cont = self._prefixes(filt is None or filt not in self.buffers)
        view.prefix = len(cont)
        out: list[str] = []
        for _seq, _level, node, text, gap in entries:
            prefix = prefixes[node or SYSTEM_NODE]
            if width or gap or "\x1b" in text or "\n" in text:
                out.extend(format_line(LogLine(node, text, gap), prefix, cont, width))
            else:  # the flood's common case, without a call per line
                out.append(prefix + text)
        if out:
            view.write_lines(out, scroll_end=self.follow)

    def _prefixes(self, tags: bool) -> tuple[dict[str, str], str]:
        """Each node's ``node │`` tag (all as wide as the widest) and the continuation's."""
        if not tags:
            return {n: "" for n in [*self.buffers, SYSTEM_NODE]}, ""
        width = self._tag_width()
        return ({n: n.ljust(width) + SEP for n in [*self.buffers, SYSTEM_NODE]},
                " " * width + SEP)

    def _merged(self, node: str | None) -> Iterator[Entry]:
        """One node's lines (of each recipe on it: ``node1/glm``), or one source's, or all."""
        if node is not None:
            picked = [b for n, b in self.buffers.items() if in_source(n, node)]
            return iter(picked[0]) if len(picked) == 1 else heapq.merge(*picked)
        return heapq.merge(*self.buffers.values())

    def _predicate(self) -> Callable[[Entry], bool] | None:
        """Whether an entry is in the view (None: every entry is)."""
        node, level, needle = self.node_filter, self.level, self.text_filter.lower()
        if node is None and not level and not needle:
            return None

        def keep(entry: Entry) -> bool:
            return ((node is None or in_source(entry[NODE] or SYSTEM_NODE, node))
                    and entry[LEVEL] >= level
                    and (not needle or needle in entry[TEXT].lower()))

        return keep

    def _view_capacity(self) -> int:
        filt = self.node_filter
        nodes = max(1, sum(1 for n in self.buffers if filt is None or in_source(n, filt)))
        return self.max_lines_per_node * nodes * (3 if self.wrap else 1)

    def _tag_width(self) -> int:
        names = [*self.node_order, *self.buffers]
        return max((len(n) for n in names), default=len(SYSTEM_NODE))

    def _wrap_width(self) -> int:
        return self.view.scrollable_content_region.width or 80

    # -- follow / pause ---------------------------------------------------------------------

    @on(LogView.Scrolled)
    def _on_scrolled(self, message: LogView.Scrolled) -> None:
        if not message.at_end and self.follow:
            self.follow = False
        elif message.at_end and not self.follow:
            self.follow = True

    def watch_follow(self, follow: bool) -> None:
        if not self.is_mounted:
            return
        self.view.auto_scroll = follow
        if follow:
            self.new_while_paused = 0
            self.match_index = None
            self.view.unmark()  # the lines move again: a marked line would drift
            self.flush()
            self.view.scroll_end(animate=False, immediate=True, x_axis=False)
        self._update_labels()

    def action_follow(self) -> None:
        self.follow = True

    def action_wrap(self) -> None:
        self.wrap = not self.wrap

    def action_level(self) -> None:
        """All lines, then ERROR+, WARNING+, INFO+, then all again."""
        at = LEVEL_CHOICES.index(self.level) if self.level in LEVEL_CHOICES else 0
        self.level = LEVEL_CHOICES[(at + 1) % len(LEVEL_CHOICES)]

    def action_next_node(self) -> None:
        """All nodes, then each node in rank order, then all again."""
        choices: list[str | None] = [None, *self.node_order,
                                     *(n for n in self.buffers if n not in self.node_order)]
        at = choices.index(self.node_filter) if self.node_filter in choices else 0
        self.node_filter = choices[(at + 1) % len(choices)]

    def _refilter(self) -> None:
        """What the view shows changed: rebuild it from the buffers and follow again."""
        if self.is_mounted:
            self.new_while_paused = 0
            self.follow = True
            self.rerender()
            self._update_labels()

    watch_wrap = watch_node_filter = watch_text_filter = watch_level = _refilter

    def on_resize(self, event: Resize) -> None:
        if self.wrap:
            self.rerender()

    # -- the search and filter boxes (their actions: LogFinding) ---------------------------

    @on(Input.Changed, "#logs-filter")
    def _on_filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.text_filter = event.value

    @on(Input.Changed, "#logs-search")
    def _on_search_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.search = event.value

    @on(Input.Submitted)
    def _on_box_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        event.input.display = False if event.input.id == "logs-search" else bool(event.value)
        self.view.focus()

    # -- labels -----------------------------------------------------------------------------

    def _update_labels(self) -> None:
        if not self.is_mounted:
            return
        where = self.node_filter or _("all nodes")
        parts = [where]
        if self.level:
            parts.append(_(LEVEL_LABELS[self.level]))
        if self.text_filter:
            parts.append(_("filter “{text}”").format(text=self.text_filter))
        if self.search:
            found = self.view.counted_matches()
            if found == 0:
                parts.append(_("“{text}”: no match").format(text=self.search))
            elif self.match_index is not None and found:
                parts.append(_("“{text}” {i}/{n}").format(
                    text=self.search, i=self.match_index + 1, n=found))
            else:
                parts.append(_("search “{text}”").format(text=self.search))
        parts.append(_("wrap") if self.wrap else _("no wrap"))
        parts.append(_("following") if self.follow else _("paused"))
        self.border_subtitle = esc(" · ".join(parts))
        badge = self.query_one("#logs-badge", Static)
        badge.display = not self.follow
        if not self.follow:
            count = self.new_while_paused
            show(badge, Text.assemble(
                ("⏸ ", "bold"),
                ngettext("+{n} new line", "+{n} new lines", count).format(n=count)
                if count else _("paused"),
                ("  ·  ", "dim"), (_("f follow"), "bold")))
