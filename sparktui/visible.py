"""Untrusted text made safe for a terminal, a comment or a log: the one filter.

Whatever a node says (labels, model names, log lines, a hook's stderr) or a config holds
reaches the operator's terminal only through this module:

* ``visible`` (one line: a name, a field) writes every control, line-breaking, bidi or
  zero-width character as an escape: ``\\x1b``, ``\\n``, ``\\u202e``;
* ``terminal_safe`` (a block of lines: what the CLI prints, a saved log) does the same for
  what a terminal acts on (C0 but tab and newline, DEL, C1 such as ``\\x9b`` CSI, line
  separators, bidi controls), after dropping colour sequences (``ESC [ 31 m``), which
  engines print and which are only noise once their ESC is escaped;
* ``TERMINAL_CONTROL`` is that set as a pattern, which the dashboard's line filter drops
  (it paints laid-out cells: an escape would change a line's width);
* ``TerminalSafeWriter`` puts ``terminal_safe`` in front of a text stream: the CLI's
  stdout and stderr go through it, so no print of it can forget the filter.

An ESC, BEL or CSI never survives, so no sequence (OSC title or clipboard, a clear, a
reset, a character set) reaches the terminal whole. Everything printable is kept.
"""

from __future__ import annotations

import re
from typing import Any, TextIO

_TERMINAL = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069"
TERMINAL_CONTROL = re.compile(f"[\t\n{_TERMINAL}]")
"""What a terminal acts on, or what reorders or breaks a line (the config refuses the
same characters: config/rules.py)."""
_TERMINAL_BUT_BLOCK = re.compile(f"[{_TERMINAL}]")
_UNSEEN = re.compile(f"[\t\n{_TERMINAL}\u200b-\u200d\u2060-\u2065\ufeff]")
_UNSEEN_BUT_LINES = re.compile(f"[\t{_TERMINAL}\u200b-\u200d\u2060-\u2065\ufeff]")
_COLOUR = re.compile("\x1b\\[[0-9;:]*m")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, lines: bool = False) -> str:
    """``text`` with every control, line-breaking or bidi character escaped (``lines``:
    but newlines, for a text of several lines)."""
    return (_UNSEEN_BUT_LINES if lines else _UNSEEN).sub(_escape, text)


def terminal_safe(text: str) -> str:
    """``text`` (a block: its tabs and newlines kept) as a terminal may receive it: colour
    sequences dropped, every other character a terminal would act on escaped."""
    if _TERMINAL_BUT_BLOCK.search(text) is None:
        return text
    if "\x1b" in text:
        text = _COLOUR.sub("", text)
    return _TERMINAL_BUT_BLOCK.sub(_escape, text)


def shorten(text: str, limit: int = 120) -> str:
    """At most ``limit`` characters: a 100k-character name is shown by its start."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


class TerminalSafeWriter:
    """A text stream whose every write goes through ``terminal_safe``; ``control`` writes
    sparktui's own sequences (``top``'s clear, ``bench``'s progress line) as they are."""

    def __init__(self, stream: TextIO):
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(terminal_safe(text))
        return len(text)

    def control(self, sequence: str) -> None:
        self.stream.write(sequence)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, encoding, ...
        return getattr(self.stream, name)


def write_control(stream: Any, sequence: str) -> None:
    """sparktui's own terminal sequence to ``stream``, past a ``TerminalSafeWriter``."""
    if isinstance(stream, TerminalSafeWriter):
        stream.control(sequence)
    else:
        stream.write(sequence)
