"""Untrusted text made safe to print on one line of a terminal, a comment or a log.

Control characters (ESC would reprogram the terminal, a newline start a new line of
a shell script, U+202E reverse what follows) are written as escapes: ``\\x1b``,
``\\n``, ``\\u202e``. Everything printable is kept as it is.
"""

from __future__ import annotations

import re

_UNSEEN = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_UNSEEN_BUT_LINES = re.compile(_UNSEEN.pattern.replace("\x00-\x1f", "\x00-\x09\x0b-\x1f"))
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


def shorten(text: str, limit: int = 120) -> str:
    """At most ``limit`` characters: a 100k-character name is shown by its start."""
    return text if len(text) <= limit else text[:limit - 1] + "…"
