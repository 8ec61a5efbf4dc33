"""A line cut at its limit ends in a sign, never in words (#31): the cut line is the same
text in every language, wherever it goes (a saved log, the last lines a supervisor keeps
on the head for an operator who reads another language)."""

from __future__ import annotations

import asyncio

from sparktui.engine.remote.bounded import CUT_MARK, split_lines
from sparktui.i18n import install


def _lines(data: bytes, limit: int) -> list[str]:
    async def go() -> list[str]:
        reader = asyncio.StreamReader()  # what a channel's stdout reads like
        reader.feed_data(data)
        reader.feed_eof()
        return [line async for batch in split_lines(reader, 16, limit) for line in batch]
    return asyncio.run(go())


def test_a_cut_line_is_marked_the_same_in_every_language() -> None:
    data = b"short\n" + b"y" * 100 + b"\nafter\n"
    install("ru")
    try:
        ru = _lines(data, 40)
    finally:
        install("en")
    en = _lines(data, 40)
    assert en == ru == ["short", "y" * 40 + CUT_MARK, "after"], en
    assert not any(c.isalpha() for c in CUT_MARK)  # a sign, no words
