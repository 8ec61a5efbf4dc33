"""Untrusted text on the dashboard: never read as markup, never a control sequence.

Textual reads a ``str`` given to a title, a ``Static``, an option, a tree or table
cell as markup: a node named ``node1[/]x`` crashed the dashboard at start, and
``[home_assistant]`` vanished from a notification. Every config or cluster string
put into such a place goes through ``esc`` (or is given as ``Text``); notifications
are plain text with secrets scrubbed; and whatever a widget paints, a control
character (ESC would reprogram the terminal) is dropped on its way out
(``NoControlFilter``), whether it came from the config, a node's labels or a log. The
characters are the CLI's and the saved logs' (``visible.TERMINAL_CONTROL``): one filter.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.markup import escape
from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from sparktui.scrub import scrub
from sparktui.visible import TERMINAL_CONTROL, visible


def esc(value: object) -> str:
    """``value`` for a markup string: its ``[`` cannot open a tag, its controls are escaped."""
    return escape(visible(scrub(str(value))))


class NoControlFilter(LineFilter):
    """Drops control and bidi characters from the text Textual writes to the terminal
    (they have no width in the layout, so dropping them keeps every line's width)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return [Segment(TERMINAL_CONTROL.sub("", seg.text), seg.style, seg.control)
                if not seg.control and TERMINAL_CONTROL.search(seg.text) else seg
                for seg in segments]


_NO_CONTROL = NoControlFilter()


class SafeText:
    """App mixin: plain, scrubbed notifications and a terminal that gets no control text."""

    def notify(self, message: str, *, title: str = "", markup: bool = False,
               **kwargs: Any) -> None:
        text = visible(scrub(str(message)), lines=True)
        heading = visible(scrub(str(title)))
        super().notify(text, title=heading, markup=markup, **kwargs)  # type: ignore[misc]

    def get_line_filters(self) -> Sequence[LineFilter]:
        return [*super().get_line_filters(), _NO_CONTROL]  # type: ignore[misc]
