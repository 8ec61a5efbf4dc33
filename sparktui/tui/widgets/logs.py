"""The logs pane: Toolong's ideas on Textual's ``Log``.

* Lines arrive in batches (``LogsArrived`` or :meth:`LogsPane.add_lines`) and go to a bounded
  buffer per node (``deque(maxlen=...)``) plus a pending list; a timer writes the pending
  lines with one ``Log.write_lines`` call at most ``FLUSH_HZ`` times a second.
* Follow/pause is one reactive: scrolling up pauses, new lines then only count in a
  "+N new lines" badge, ``f`` resumes.
* The view (merged with node tags, or one node; wrap; a text filter) is a function of
  the buffers, so changing it re-renders from them. Search, level filter and save plug in
  as more predicates/commands over the same buffers.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from rich.cells import cell_len, chop_cells
from rich.highlighter import Highlighter
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.events import Resize
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input, Log, Static

from sparktui.engine.status import LogLine
from sparktui.i18n import _, ngettext
from sparktui.tui.messages import LogsArrived
from sparktui.tui.state import strip_ansi

DEFAULT_MAX_LINES = 5000
FLUSH_HZ = 20
SEP = " │ "
TAG_STYLES = ("bold cyan", "bold magenta", "bold green", "bold yellow", "bold blue",
              "bold red")
SYSTEM_NODE = "sparktui"


class Entry(NamedTuple):
    seq: int
    line: LogLine


class TagHighlighter(Highlighter):
    """Colors the ``node │`` prefix, one color per node; gap markers stand out."""

    def __init__(self) -> None:
        self.styles: dict[str, str] = {}

    def highlight(self, text: Text) -> None:
        plain = text.plain
        cut = plain.find(SEP)
        if cut > 0:
            tag = plain[:cut].strip()
            text.stylize(self.styles.get(tag, "bold"), 0, cut)
            text.stylize("dim", cut, cut + len(SEP))
        if "⋯" in plain:
            text.stylize("yellow", max(cut, 0))


class LogView(Log):
    """A ``Log`` that tells its pane when the operator scrolls away from the end."""

    class Scrolled(Message):
        def __init__(self, at_end: bool) -> None:
            super().__init__()
            self.at_end = at_end

    quiet = False
    """Set while the pane itself rewrites the view, so that is not taken as a scroll."""

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if not self.quiet and round(old_value) != round(new_value):
            self.post_message(self.Scrolled(self.is_vertical_scroll_end))


class LogsPane(Vertical):
    """Logs of the cluster in focus, merged with node tags or one node at a time."""

    BINDINGS = [
        Binding("f", "follow", _("Follow"), id="logs.follow"),
        Binding("w", "wrap", _("Wrap"), id="logs.wrap"),
        Binding("n", "next_node", _("Node"), id="logs.node"),
        Binding("escape", "close_filter", _("Clear filter"), show=False, id="logs.unfilter"),
    ]

    follow: reactive[bool] = reactive(True)
    wrap: reactive[bool] = reactive(False)
    node_filter: reactive[str | None] = reactive(None)
    text_filter: reactive[str] = reactive("")

    def __init__(self, max_lines_per_node: int = DEFAULT_MAX_LINES, *, cursor_blink: bool = True,
                 id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.max_lines_per_node = max_lines_per_node
        self.buffers: dict[str, deque[Entry]] = {}
        self.node_order: list[str] = []
        self.new_while_paused = 0
        self._pending: list[Entry] = []
        self._stale = False
        self._seq = 0
        self._cursor_blink = cursor_blink
        self._highlighter = TagHighlighter()
        self._empty_text = _("No log lines yet.")

    def compose(self) -> ComposeResult:
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
        self.query_one("#logs-filter", Input).cursor_blink = self._cursor_blink
        self.set_interval(1 / FLUSH_HZ, self.flush)
        self._update_labels()

    @property
    def view(self) -> LogView:
        return self.query_one(LogView)

    # -- feeding --------------------------------------------------------------------------

    def set_nodes(self, names: Iterable[str]) -> None:
        """The nodes of the cluster in focus, in rank order (tags and ``n`` follow it)."""
        self.node_order = list(names)
        for i, name in enumerate(self.node_order):
            self._highlighter.styles[name] = TAG_STYLES[i % len(TAG_STYLES)]
        self._highlighter.styles[SYSTEM_NODE] = "bold red"

    def set_empty_text(self, text: str) -> None:
        """What the pane says while no line has arrived."""
        self._empty_text = text
        if self.is_mounted:
            self.query_one("#logs-empty", Static).update(text)

    def add_lines(self, lines: Iterable[LogLine]) -> None:
        if not self.buffers and self.is_mounted:
            self.query_one("#logs-empty").display = False
        for line in lines:
            self._seq += 1
            entry = Entry(self._seq, line)
            node = line.node or SYSTEM_NODE
            buf = self.buffers.get(node)
            if buf is None:
                buf = self.buffers[node] = deque(maxlen=self.max_lines_per_node)
                self._highlighter.styles.setdefault(node, TAG_STYLES[
                    len(self._highlighter.styles) % len(TAG_STYLES)])
            buf.append(entry)
            if self._matches(entry.line):
                self._pending.append(entry)
                if not self.follow:
                    self.new_while_paused += 1
        if len(self._pending) > self._view_capacity():
            # More arrived than the view can hold: rebuild from the buffers instead.
            self._pending.clear()
            self._stale = True
        if not self.follow:
            self._update_labels()

    @on(LogsArrived)
    def _on_logs_arrived(self, message: LogsArrived) -> None:
        message.stop()
        self.add_lines(message.lines)

    def clear(self) -> None:
        self.buffers.clear()
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
        return [e.line for e in self._merged(node)]

    def rerender(self) -> None:
        view = self.view
        view.quiet = True
        try:
            view.clear()
            self._pending.clear()
            self._stale = False
            entries = [e for e in self._merged(self.node_filter) if self._matches(e.line)]
            self._write(entries[-self._view_capacity():])
            view.scroll_end(animate=False, immediate=True, x_axis=False)
        finally:
            view.quiet = False

    def _write(self, entries: list[Entry]) -> None:
        view = self.view
        view.max_lines = self._view_capacity()
        tag_width = self._tag_width()
        width = self._wrap_width() if self.wrap else 0
        out: list[str] = []
        for entry in entries:
            out.extend(self._format(entry.line, tag_width, width))
        if out:
            view.write_lines(out, scroll_end=self.follow)

    def _format(self, line: LogLine, tag_width: int, wrap_width: int) -> list[str]:
        text = strip_ansi(line.text)
        if line.gap:
            text = f"⋯ {text or _('log stream reconnected')} ⋯"
        if self.node_filter is None:
            node = line.node or SYSTEM_NODE
            prefix = node.ljust(tag_width) + SEP
            cont = " " * tag_width + SEP
        else:
            prefix = cont = ""
        if not wrap_width:
            return [prefix + text]
        room = max(8, wrap_width - cell_len(prefix))
        chunks = chop_cells(text, room) if cell_len(text) > room else [text]
        return [prefix + chunks[0], *(cont + c for c in chunks[1:])]

    def _merged(self, node: str | None) -> Iterator[Entry]:
        if node is not None:
            return iter(self.buffers.get(node, ()))
        return heapq.merge(*self.buffers.values())

    def _matches(self, line: LogLine) -> bool:
        if self.node_filter is not None and (line.node or SYSTEM_NODE) != self.node_filter:
            return False
        return not self.text_filter or self.text_filter.lower() in line.text.lower()

    def _view_capacity(self) -> int:
        nodes = 1 if self.node_filter is not None else max(1, len(self.buffers))
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
            self.flush()
            self.view.scroll_end(animate=False, immediate=True, x_axis=False)
        self._update_labels()

    def action_follow(self) -> None:
        self.follow = True

    def action_wrap(self) -> None:
        self.wrap = not self.wrap

    def action_next_node(self) -> None:
        """All nodes, then each node in rank order, then all again."""
        choices: list[str | None] = [None, *self.node_order,
                                     *(n for n in self.buffers if n not in self.node_order)]
        at = choices.index(self.node_filter) if self.node_filter in choices else 0
        self.node_filter = choices[(at + 1) % len(choices)]

    def watch_wrap(self) -> None:
        self._refilter()

    def watch_node_filter(self) -> None:
        self._refilter()

    def watch_text_filter(self) -> None:
        self._refilter()

    def _refilter(self) -> None:
        if self.is_mounted:
            self.new_while_paused = 0
            self.follow = True
            self.rerender()
            self._update_labels()

    def on_resize(self, event: Resize) -> None:
        if self.wrap:
            self.rerender()

    # -- text filter ------------------------------------------------------------------------

    def open_filter(self) -> None:
        box = self.query_one("#logs-filter", Input)
        box.display = True
        box.focus()

    def action_close_filter(self) -> None:
        box = self.query_one("#logs-filter", Input)
        box.value = ""
        box.display = False
        self.view.focus()

    @on(Input.Changed, "#logs-filter")
    def _on_filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.text_filter = event.value

    @on(Input.Submitted, "#logs-filter")
    def _on_filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if not event.value:
            event.input.display = False
        self.view.focus()

    # -- labels -----------------------------------------------------------------------------

    def _update_labels(self) -> None:
        if not self.is_mounted:
            return
        where = self.node_filter or _("all nodes")
        parts = [where]
        if self.text_filter:
            parts.append(_("filter “{text}”").format(text=self.text_filter))
        parts.append(_("wrap") if self.wrap else _("no wrap"))
        parts.append(_("following") if self.follow else _("paused"))
        self.border_subtitle = " · ".join(parts)
        badge = self.query_one("#logs-badge", Static)
        badge.display = not self.follow
        if not self.follow:
            count = self.new_while_paused
            badge.update(Text.assemble(
                ("⏸ ", "bold"),
                ngettext("+{n} new line", "+{n} new lines", count).format(n=count),
                ("  ·  ", "dim"), (_("f follow"), "bold")))
