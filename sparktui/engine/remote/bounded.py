"""Reads from a node with a limit: a node that prints without end costs no memory.

A command's stdout and stderr keep at most ``OUTPUT_LIMIT`` bytes each (``TooLarge`` past
it: the node's error is "output too large"), an HTTP answer its caller's limit
(``remote.http``), and a streamed line at most ``LINE_LIMIT`` characters: past it the
line is yielded cut and marked (``CUT_MARK``), and the rest of it, up to its newline, is dropped.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from sparktui.fmt import format_size
from sparktui.scrub import mask_text
from sparktui.visible import visible

OUTPUT_LIMIT = 16 << 20
"""A command's stdout (or stderr): docker's listing of thousands of containers fits."""
LINE_LIMIT = 16 << 10
"""A streamed log line: engines' longest lines (a config dump) are a few kB."""
READ_CHUNK = 64 << 10


def decode_output(data: str | bytes | None) -> str:
    if data is None:
        return ""
    return data if isinstance(data, str) else data.decode("utf-8", "replace")


class TooLarge(Exception):
    """A read passed its limit (bytes); what was read is dropped."""

    def __init__(self, limit: int):
        self.limit = limit
        super().__init__(limit)


async def read_bounded(reader: Any, limit: int, *, extra: int = 0) -> bytes:
    """Everything ``reader`` gives up to its end, or ``TooLarge`` past ``limit`` bytes
    (and ``extra``, for what comes before a body)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        raw = await reader.read(READ_CHUNK)
        if not raw:
            return b"".join(chunks)
        chunk = raw if isinstance(raw, bytes) else raw.encode()
        size += len(chunk)
        if size > limit + extra:
            raise TooLarge(limit)
        chunks.append(chunk)


CUT_MARK = " …✂"
"""What ends a line cut at its limit: a sign, no words. A cut line stays a plain string
on every path it takes (batches of a flood, the logs pane, ``sparktui logs``, a saved
log, the last lines a supervisor keeps on the head for whoever reads them later, in
their language): a flag beside each line would cost every line of a flood a field, and
words would be in the language of the process that cut it. An ellipsis and scissors read
the same in every language, and are one cell each."""


def cut_line(text: str, limit: int = LINE_LIMIT) -> str:
    """``text``, or its first ``limit`` characters marked as cut (``CUT_MARK``)."""
    return text if len(text) <= limit else text[:limit] + CUT_MARK


async def split_lines(reader: Any, size: int = 1 << 16,
                      limit: int = LINE_LIMIT) -> AsyncIterator[list[str]]:
    """Read big chunks and split them: per-line reads cost more than the SSH transfer.
    A line longer than ``limit`` is yielded cut as soon as it passes it; the rest of it,
    up to its newline, is dropped."""
    partial = ""
    cutting = False  # in the rest of a line already yielded cut
    while True:
        data = decode_output(await reader.read(size))
        if not data:
            if partial and not cutting:
                yield [partial]
            return
        lines = (partial + data).split("\n")
        partial = lines.pop()
        if cutting:
            if not lines:  # still in the cut line
                partial = ""
                continue
            lines.pop(0)
            cutting = False
        if any(len(line) > limit for line in lines):
            lines = [cut_line(line, limit) for line in lines]
        if len(partial) > limit:
            lines.append(cut_line(partial, limit))
            partial, cutting = "", True
        if lines:
            yield lines


def output_too_large(limit: int, command: str) -> str:
    """The limit and the command, named as a timeout names it (secrets masked first)."""
    return f"{format_size(limit)}: {command_shown(command)}"


def command_shown(command: str) -> str:
    """A command as an error names it: its secrets masked before it is cut (a value cut
    short would no longer be found by value), its text made safe for a terminal."""
    return visible(mask_text(command))[:80]
