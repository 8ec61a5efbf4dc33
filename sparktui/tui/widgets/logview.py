"""The lines of the logs pane: Textual's ``Log`` (plain strings, only visible lines rendered)
with node tags, level words and search matches styled as each visible line is drawn.

Styling happens in ``_render_line_strip``, per line on screen, so a search over 40,000
lines costs nothing until a line is shown; the strings themselves stay plain.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Self

from rich.cells import cell_len
from rich.highlighter import Highlighter
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widgets import Log

SEP = " │ "
SYSTEM_NODE = "sparktui"
"""The tag of lines sparktui adds itself (a dropped stream, a gap)."""
LEVEL_WORD = re.compile(r"(?<![A-Za-z])(CRITICAL|FATAL|ERROR|WARNING|WARN)(?![A-Za-z])"
                        r"|Traceback \(most recent call last\)")


GAP_STYLE = "yellow"


def level_style(word: str) -> str:
    return "bold yellow" if word.startswith("WARN") else "bold red"


class TagHighlighter(Highlighter):
    """Colors the ``node │`` prefix, one color per node; gap markers and levels stand out."""

    def __init__(self) -> None:
        self.styles: dict[str, str] = {}

    def highlight(self, text: Text) -> None:
        plain = text.plain
        cut = plain.find(SEP)
        if cut > 0:
            tag = plain[:cut].strip()
            text.stylize(self.styles.get(tag, "bold"), 0, cut)
            text.stylize("dim", cut, cut + len(SEP))
        body = cut + len(SEP) if cut >= 0 else 0
        if "⋯" in plain:
            text.stylize(GAP_STYLE, body)
            return
        match = LEVEL_WORD.search(plain, body, body + 80)
        if match is not None:
            text.stylize(level_style(match.group(0)), match.start(), match.end())


class LogView(Log):
    """A ``Log`` that highlights search matches and tells its pane about scrolling."""

    COMPONENT_CLASSES = {"logview--match", "logview--current"}
    DEFAULT_CSS = """
    LogView > .logview--match {
        background: $warning 40%;
    }
    LogView > .logview--current {
        background: $primary;
        color: $text;
        text-style: bold;
    }
    """

    class Scrolled(Message):
        def __init__(self, at_end: bool) -> None:
            super().__init__()
            self.at_end = at_end

    quiet = False
    """Set while the pane itself rewrites or moves the view, so that is not taken as a scroll."""
    pattern: re.Pattern[str] | None = None
    """Search matches to highlight (from ``prefix`` on: node tags are not searched)."""
    prefix = 0
    current: tuple[int, int, int] | None = None
    """``(y, start, end)`` of the current match or marked line."""
    version = 0
    """Bumped whenever the lines change: cached matches are then stale."""
    _found: tuple[int, re.Pattern[str] | None, list[tuple[int, int, int]]] | None = None
    _styles: dict[tuple[Style, str], Style]
    _base: Style | None = None
    _tag_cells: dict[str, int] | None = None
    """Cells of each ``node │`` tag seen (a few distinct ones per cluster)."""

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self.quiet or round(old_value) == round(new_value):
            return
        at_end = self.is_vertical_scroll_end
        if at_end and new_value < old_value and self.current is not None:
            return  # the view grew (a box closed) and clamped the scroll: keep the mark
        self.post_message(self.Scrolled(at_end))

    def on_mount(self) -> None:
        self._styles = {}

    def on_resize(self, event: events.Resize) -> None:
        """Following, the view stays at the end when it changes size: lines written before
        its layout settled scrolled to the end of a smaller or larger view."""
        if self.auto_scroll and self.current is None:
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def write_lines(self, lines: Iterable[str], scroll_end: bool | None = None) -> Self:
        self.version += 1
        return super().write_lines(lines, scroll_end)

    def _update_size(  # type: ignore[override]  # Textual's is a @work thread
            self, updates: int, lines: list[str]) -> None:
        """The widest line, inline: Textual's ``Log`` spawns a thread per write for this,
        which under a flood costs more (thread start, GIL) than the plain-ASCII fast path.
        A merged line starts with a ``node │`` tag (not ASCII): the tag's cells are counted
        once per distinct tag and the rest by ``len`` when it is plain printable ASCII (no
        tab follows the tag then, so the tag's cells do not depend on it)."""
        if not lines:
            return
        process = self._process_line
        tags = self._tag_cells
        if tags is None:
            tags = self._tag_cells = {}
        widest = 0
        for line in lines:
            if line.isascii() and line.isprintable():
                cells = len(line)
            else:
                cut = line.find(SEP) + len(SEP)
                body = line[cut:]
                if cut >= len(SEP) and body.isascii() and body.isprintable():
                    tag = line[:cut]
                    tag_cells = tags.get(tag)
                    if tag_cells is None:
                        if len(tags) > 256:
                            tags.clear()
                        tag_cells = tags[tag] = cell_len(process(tag))
                    cells = tag_cells + len(body)
                else:
                    cells = cell_len(process(line))
            if cells > widest:
                widest = cells
        self._update_maximum_width(updates, widest)

    def clear(self) -> Self:
        self.version += 1
        self.current = None
        return super().clear()

    def matches(self) -> list[tuple[int, int, int]]:
        """``(y, start, end)`` of every match of ``pattern`` (tags excluded), cached."""
        if self._found is None or self._found[:2] != (self.version, self.pattern):
            pattern, prefix = self.pattern, self.prefix
            found = [] if pattern is None else [
                (y, m.start(), m.end()) for y in range(self.line_count)
                for m in pattern.finditer(self.text_at(y), prefix)]
            self._found = (self.version, pattern, found)
        return self._found[2]

    def counted_matches(self) -> int | None:
        """How many matches, if they are known for the current lines (never a new scan)."""
        if self._found is None or self._found[:2] != (self.version, self.pattern):
            return None
        return len(self._found[2])

    def first_line(self, predicate: Callable[[str], bool]) -> int | None:
        """The first line whose text (tags excluded) satisfies ``predicate``."""
        prefix = self.prefix
        return next((y for y in range(self.line_count)
                     if predicate(self.text_at(y)[prefix:])), None)

    def text_at(self, y: int) -> str:
        """Line ``y`` as drawn (tabs expanded, control codes replaced)."""
        return self._process_line(self._lines[y])

    def show(self, y: int, start: int, end: int) -> None:
        """Mark ``start:end`` of line ``y`` and scroll it into view (centered if off screen)."""
        self.current = (y, start, end)
        height = self.scrollable_content_region.height or 1
        width = self.scrollable_content_region.width or 1
        target_y = self.scroll_y if self.scroll_y <= y < self.scroll_y + height \
            else max(0, y - height // 2)
        line = self.text_at(y)
        left, right = cell_len(line[:start]), cell_len(line[:end])
        target_x = self.scroll_x if self.scroll_x <= left and right <= self.scroll_x + width \
            else max(0, left - width // 3)
        self.quiet = True
        try:
            self.scroll_to(target_x, target_y, animate=False, immediate=True)
        finally:
            self.quiet = False
        self.refresh()

    def unmark(self) -> None:
        if self.current is not None:
            self.current = None
            self.refresh()

    def render_lines(self, crop: Region) -> list[Strip]:
        # The widget's style once per paint, not once per line (it walks the DOM).
        self._base = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._base = None

    def _render_line(self, y: int, scroll_x: int, width: int) -> Strip:
        rich_style = self._base or self.rich_style
        if y >= len(self._lines):
            return Strip.blank(width, rich_style)
        strip = self._render_line_strip(y, rich_style)
        return strip.crop_extend(scroll_x, scroll_x + width, rich_style).apply_offsets(
            scroll_x, y)

    def _render_line_strip(self, y: int, rich_style: Style) -> Strip:
        current = self.current if self.current is not None and self.current[0] == y else None
        if self.text_selection is not None:
            return super()._render_line_strip(y, rich_style)
        line = self.text_at(y)
        if self.pattern is None and current is None:
            return self._plain_strip(line, rich_style)
        text = Text(line, no_wrap=True)
        text.stylize(rich_style)
        if self.highlight:
            text = self.highlighter(text)
        if self.pattern is not None:
            style = self.get_component_rich_style("logview--match")
            for match in self.pattern.finditer(line, self.prefix):
                text.stylize(style, match.start(), match.end())
        if current is not None:
            text.stylize(self.get_component_rich_style("logview--current"), *current[1:])
        return Strip(text.render(self.app.console), cell_len(line))

    def _plain_strip(self, line: str, base: Style) -> Strip:
        """``TagHighlighter``'s styling as segments, without a ``Text`` (the flood's path:
        while following a flood every visible line is new in every frame)."""
        styles = self._styles

        def style(name: str) -> Style:
            found = styles.get((base, name))
            if found is None:
                if len(styles) > 256:
                    styles.clear()
                found = styles[(base, name)] = base + Style.parse(name)
            return found

        segments: list[Segment] = []
        body = 0
        cut = line.find(SEP)
        if cut > 0:
            tag = line[:cut]
            segments += [Segment(tag, style(self._tags.get(tag.strip(), "bold"))),
                         Segment(SEP, style("dim"))]
            body = cut + len(SEP)
        match = None if "⋯" in line else LEVEL_WORD.search(line, body, body + 80)
        if "⋯" in line:
            segments.append(Segment(line[body:], style(GAP_STYLE)))
        elif match is None:
            segments.append(Segment(line[body:], base))
        else:
            start, end = match.span()
            segments += [Segment(line[body:start], base),
                         Segment(line[start:end], style(level_style(match.group(0)))),
                         Segment(line[end:], base)]
        return Strip([s for s in segments if s.text], cell_len(line))

    @property
    def _tags(self) -> dict[str, str]:
        highlighter = self.highlighter
        return highlighter.styles if isinstance(highlighter, TagHighlighter) else {}
