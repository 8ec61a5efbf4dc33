"""Repaint a Static only when what it shows changes.

``Static.update`` lays the whole screen out again (the new content may need another
size), and the header, the wall tiles and the panes are repainted every second and on
every health check with what is mostly what they already show: on a wall screen left
running for days, or a small head node, that was most of the dashboard's CPU.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.visual import VisualType
from textual.widgets import Static


def same(shown: VisualType, new: VisualType) -> bool:
    """True when ``new`` would draw exactly what ``shown`` draws. Only text is compared
    (rich's ``Text ==`` ignores the base style and the wrapping); anything else counts
    as changed."""
    if isinstance(shown, str) and isinstance(new, str):
        return shown == new
    if isinstance(shown, Text) and isinstance(new, Text):
        return (shown.plain == new.plain and shown.spans == new.spans
                and str(shown.style) == str(new.style) and shown.justify == new.justify
                and shown.overflow == new.overflow and shown.no_wrap == new.no_wrap
                and shown.end == new.end and shown.tab_size == new.tab_size)
    return False


def show(static: Static, content: VisualType) -> None:
    """``static.update(content)``, unless it shows that already."""
    if not same(static.content, content):
        static.update(content)


def show_line(static: Static, content: Text) -> None:
    """For a Static one cell high: laid out again only when the width it needs changed
    (``updated 4s ago`` becoming ``updated 5s ago`` needs a repaint, not a layout)."""
    shown = static.content
    if same(shown, content):
        return
    width = cell_len(shown.plain) if isinstance(shown, Text) else None
    static.update(content, layout=width != content.cell_len or "\n" in content.plain)
