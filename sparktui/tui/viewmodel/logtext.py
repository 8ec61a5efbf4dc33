"""What the logs pane knows about log text, without widgets: levels, errors, search, saving.

* :func:`classify` reads the level of a vLLM, SGLang, uvicorn or Ray line (``INFO 06-15``,
  ``(VllmWorker rank=0 pid=7) ERROR``, ``INFO:     127.0.0.1 ...``, ``[W ...]``). A line
  without a level continues the record before it when it is indented, and a traceback's
  lines (``  File ...``, ``ValueError: ...``, ``During handling ...``) stay at ERROR.
* :func:`is_error_line` is what "jump to the first error" looks for.
* :func:`save_log` writes lines to ``sparktui-logs-<cluster>-<timestamp>.log``, atomically,
  readable by the operator only (0600), each through the terminal filter
  (``visible.terminal_safe``): a saved log is read with ``cat`` or ``less -R`` too.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Final

from rich.cells import cell_len, get_character_cell_size

from sparktui.config.files import atomic_write_text
from sparktui.engine.api import LogLine
from sparktui.i18n import _
from sparktui.tui.viewmodel.health import strip_ansi
from sparktui.visible import terminal_safe

DEBUG, INFO, WARNING, ERROR = 10, 20, 30, 40
LEVEL_CHOICES = (0, ERROR, WARNING, INFO)
"""What ``v`` cycles through: all, ERROR+, WARNING+, INFO+."""
LEVEL_LABELS = {0: "all", DEBUG: "DEBUG+", INFO: "INFO+", WARNING: "WARNING+", ERROR: "ERROR+"}

Entry = tuple[int, int, str, str, bool]
"""A buffered line: ``(seq, level, node, text, gap)``. An exact tuple of plain values, not
a NamedTuple: CPython's cyclic collector untracks only exact tuples of untracked values, and
a flood keeps ~10,000 entries alive at a time (as NamedTuples every full collection walked
them all; read the fields with the ``SEQ``... indices or :func:`entry_line`)."""
SEQ: Final = 0
LEVEL: Final = 1
NODE: Final = 2
TEXT: Final = 3
GAP: Final = 4


def entry_line(entry: Entry) -> LogLine:
    """The line an entry was made from."""
    return LogLine(entry[NODE], entry[TEXT], entry[GAP])


HEAD = 80
"""Levels are looked for at the start of a line: a message may say "error" later on."""

_LEVEL = re.compile(r"(?<![A-Za-z])(CRITICAL|FATAL|ERROR|WARNING|WARN|INFO|DEBUG|TRACE)"
                    r"(?![A-Za-z])|^\[([EWIF])[ \d]")
_LEVELS = {"CRITICAL": ERROR, "FATAL": ERROR, "ERROR": ERROR, "WARNING": WARNING,
           "WARN": WARNING, "INFO": INFO, "DEBUG": DEBUG, "TRACE": DEBUG,
           "E": ERROR, "F": ERROR, "W": WARNING, "I": INFO}
_ERROR_TEXT = re.compile(r"Traceback \(most recent call last\)|CUDA out of memory|NCCL error"
                         r"|OutOfMemoryError", re.IGNORECASE)
_PROCESS = re.compile(r"^\([^()]{1,80}\)\s")  # "(VllmWorker rank=0 pid=7) ", "(raylet) "
_TRACEBACK_TAIL = re.compile(r"^(\s|$|\^|~|File \"|During handling|The above exception"
                             r"|[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Failure)\b)")


def _plain(text: str) -> str:
    return strip_ansi(text) if "\x1b" in text else text


def classify(text: str, previous: int = INFO) -> int:
    """The level of ``text``, given the level of the node's line before it."""
    text = _plain(text)
    match = _LEVEL.search(text, 0, HEAD)
    if match is not None:
        return _LEVELS[match.group(1) or match.group(2)]
    if _ERROR_TEXT.search(text):
        return ERROR
    body = _PROCESS.sub("", text, count=1) if text.startswith("(") else text
    if previous >= ERROR and _TRACEBACK_TAIL.match(body):
        return previous
    if not body.strip() or body[0] in " \t":
        return previous
    return INFO


def is_error_line(text: str) -> bool:
    """An ERROR (or CRITICAL) line, a traceback's start, CUDA out of memory, an NCCL error."""
    text = _plain(text)
    match = _LEVEL.search(text, 0, HEAD)
    if match is not None and _LEVELS[match.group(1) or match.group(2)] >= ERROR:
        return True
    return _ERROR_TEXT.search(text) is not None


def search_pattern(needle: str) -> re.Pattern[str] | None:
    """Plain text, case-insensitive unless it has a capital letter (smart case)."""
    if not needle:
        return None
    flags = 0 if any(ch.isupper() for ch in needle) else re.IGNORECASE
    return re.compile(re.escape(needle), flags)


def format_line(line: LogLine, prefix: str, cont: str, wrap_width: int) -> list[str]:
    """A log line as the view's strings: ``prefix`` (a node tag) before it, wrapped to
    ``wrap_width`` cells (0: no wrap) with ``cont`` before each continuation."""
    text = line.text
    if "\x1b" in text:
        text = strip_ansi(text)
    if line.gap:
        text = f"⋯ {text or _('log stream reconnected')} ⋯"
    if not wrap_width:
        return [prefix + text]
    room = max(8, wrap_width - cell_len(prefix))
    chunks = word_wrap(text, room)
    return [prefix + chunks[0], *(cont + c for c in chunks[1:])]


def word_wrap(text: str, room: int) -> list[str]:
    """``text`` in pieces of at most ``room`` cells, each broken after its last space (a
    word longer than the room is cut where the room ends). One pass over the text: a
    megabyte line costs what its length costs."""
    if text.isascii():  # one cell per character: slicing is exact and much faster
        pieces, start = [], 0
        while len(text) - start > room:
            cut = text.rfind(" ", start, start + room) + 1
            cut = cut if cut > start else start + room
            pieces.append(text[start:cut])
            start = cut
        return [*pieces, text[start:]]
    if cell_len(text) <= room:
        return [text]
    pieces, start, width, after_space = [], 0, 0, -1
    for i, char in enumerate(text):
        cells = get_character_cell_size(char)
        while width + cells > room and width:
            cut = after_space if after_space > start else i
            pieces.append(text[start:cut])
            width, start, after_space = cell_len(text[cut:i]), cut, -1  # under room cells
        if char == " ":
            after_space = i + 1
        width += cells
    return [*pieces, text[start:]]


def pick_match(matches: Sequence[tuple[int, int, int]], index: int | None, step: int,
               anchor: int | None) -> int:
    """Which match to show: ``step`` 1/-1 from ``index`` (wrapping); with no index, the
    first at or after line ``anchor`` (-1: the last before it); ``anchor`` None: the last."""
    if index is not None and step:
        return (index + step) % len(matches)
    if anchor is None:
        return len(matches) - 1
    if step >= 0:
        return next((i for i, m in enumerate(matches) if m[0] >= anchor), 0)
    return next((i for i in range(len(matches) - 1, -1, -1) if matches[i][0] < anchor),
                len(matches) - 1)


def log_file_name(cluster: str, now: float) -> str:
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", cluster) or "cluster"
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    return f"sparktui-logs-{safe}-{stamp}.log"


def save_log(lines: Iterable[str], directory: Path, cluster: str, now: float) -> Path:
    """Write ``lines`` to a new file in ``directory``; its path (``-2``, ``-3`` if taken)."""
    name = log_file_name(cluster, now)
    path = directory / name
    count = 1
    while path.exists():
        count += 1
        path = directory / name.replace(".log", f"-{count}.log")
    text = "".join(line.replace("\n", "\\n") + "\n" for line in lines)
    atomic_write_text(path, terminal_safe(text), new_mode=0o600)
    return path
