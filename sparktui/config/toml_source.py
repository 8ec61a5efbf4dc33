"""Read a TOML file and remember on which line every key and array item stands.

tomllib parses fast but forgets positions; pydantic reports errors by path
(``clusters.1.nodes.0.rank``). ``KeyLines`` maps such a path back to a line by a
small structural scan of the text, so every error can name its line.
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from sparktui.errors import fail

Path_ = tuple[str | int, ...]

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_BASIC = re.compile(r'"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"?')
_LITERAL = re.compile(r"'[^'\n]*'?")
_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
MAX_BYTES = 1024 * 1024
"""A config or recipe is a page of settings; past 1 MiB it is refused before parsing."""
MAX_KEY_PARTS = 32
"""The most parts a dotted key or a table header may have (``a.b.c`` has 3). tomllib's
time and memory grow with the square of a key's parts: one 400 KB key ``a.a.a…`` took
12 GB and did not end; the longest real key has 4."""


_ONE_PART = r"""[A-Za-z0-9_-]+|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|'[^'\n]*'"""
_KEY_PART = re.compile(_ONE_PART)


def _part(name: str) -> str:
    """A key's part: a bare word taken whole (a lookahead's capture, matched again: an
    atomic group, never given back a letter at a time) or a one-line string."""
    return rf"(?:(?=(?P<{name}>[A-Za-z0-9_-]+))(?P={name})|{_ONE_PART})"


_TOKEN = re.compile(
    rf"(?P<chain>(?<![A-Za-z0-9_-]){_part('first')}"
    rf"(?:[ \t]*\.[ \t]*{_part('next')}){{1,{MAX_KEY_PARTS}}})"
    r"|#[^\n]*"  # a comment
    r'|"""(?:[^"\\]|\\[\s\S]?|"(?!""))*(?:"{3,5}|\Z)'  # a multi-line basic string
    r"|'''[\s\S]*?(?:'{3,5}|\Z)"  # a multi-line literal string
    r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"?'  # a basic string, closed or not
    r"|'[^'\n]*'?")  # a literal string, closed or not
"""Strings and comments are skipped whole (their dots are text); what is left, parts
joined by dots, is a dotted key, a header or a number (``1.5``), taken whole up to
``MAX_KEY_PARTS + 1`` parts: a chain that long is refused, and nothing longer is ever
held (a regex repeat keeps state for each round). Every token is taken whole in one pass
and none can fail once begun, so the scan is linear in the text. (No
possessive quantifiers: Python 3.11.2 fails ``(?:[^"]++|"(?!""))*+`` on a plain string.)
"""
_BOM = "\ufeff"


@dataclass(frozen=True)
class TomlSource:
    path: Path
    data: dict[str, Any]
    lines: KeyLines

    def line_of(self, loc: Path_) -> int | None:
        return self.lines.find(loc)


class KeyLines:
    def __init__(self, positions: dict[Path_, int]):
        self._positions = positions

    def find(self, loc: Path_) -> int | None:
        """Line of the deepest known prefix of ``loc`` (None if nothing matches)."""
        loc = tuple(loc)
        while loc:
            if loc in self._positions:
                return self._positions[loc]
            loc = loc[:-1]
        return None


def load_toml(path: Path) -> TomlSource:
    return parse_toml(read_text(path), path)


def read_text(path: Path, *, limit: int = MAX_BYTES, too_large: str = "file_too_large"
              ) -> str:
    """A regular file's UTF-8 text, at most ``limit`` bytes (past it, the problem
    ``too_large``); anything else is a problem.

    Opened without blocking and checked on the open descriptor, so a FIFO or a device
    named as the config is refused at once instead of read forever.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except FileNotFoundError:
        raise fail("file_missing", file=path) from None
    except OSError as exc:
        raise fail("file_unreadable", file=path, detail=exc.strerror or type(exc).__name__) \
            from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise fail("file_is_folder", file=path)
        if not stat.S_ISREG(mode):
            raise fail("file_not_regular", file=path)
        data = os.read(fd, limit + 1)
        while len(data) <= limit and (more := os.read(fd, limit + 1 - len(data))):
            data += more
    except OSError as exc:
        raise fail("file_unreadable", file=path, detail=exc.strerror or type(exc).__name__) \
            from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise fail(too_large, file=path, limit=f"{limit >> 20} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise fail("file_not_utf8", file=path, line=line) from None


def parse_toml(text: str, path: Path) -> TomlSource:
    if len(text) > MAX_BYTES:
        raise fail("file_too_large", file=path, limit="1 MiB")
    if text.startswith(_BOM):
        text = text[1:]  # a UTF-8 byte order mark, as some Windows editors write
    _refuse_long_keys(text, path)
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise fail("toml_too_deep", file=path) from None
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = _POSITION.search(message)
        line = int(match.group(1)) if match else None
        detail = _POSITION.sub("", message)
        raise fail("toml_syntax", file=path, line=line, detail=detail) from None
    try:
        lines = KeyLines(_Scanner(text).scan())
    except RecursionError:
        raise fail("toml_too_deep", file=path) from None
    return TomlSource(path, data, lines)


def _refuse_long_keys(text: str, path: Path) -> None:
    """A dotted key or header of more than ``MAX_KEY_PARTS`` parts, refused at its line
    before tomllib sees it (one linear regex pass, no parse)."""
    for match in _TOKEN.finditer(text):
        chain = match.group("chain")
        if chain is not None and chain.count(".") >= MAX_KEY_PARTS \
                and next(islice(_KEY_PART.finditer(chain), MAX_KEY_PARTS, None), None):
            line = text.count("\n", 0, match.start()) + 1
            raise fail("toml_key_too_long", file=path, line=line, limit=MAX_KEY_PARTS)


class _Scanner:
    """Walks valid TOML text recording ``path -> line``; values are skipped, not parsed."""

    def __init__(self, text: str):
        self.text = text
        self.i = 0
        self.line = 1
        self.positions: dict[Path_, int] = {}
        self.aot_counts: dict[Path_, int] = {}

    # -- low level -------------------------------------------------------
    def peek(self, offset: int = 0) -> str:
        j = self.i + offset
        return self.text[j] if j < len(self.text) else ""

    def advance(self, n: int = 1) -> None:
        end = min(self.i + n, len(self.text))
        self.line += self.text.count("\n", self.i, end)
        self.i = end

    def skip_space(self, newlines: bool) -> None:
        while self.i < len(self.text):
            ch = self.text[self.i]
            if ch in " \t\r" or (newlines and ch == "\n"):
                self.advance()
            elif ch == "#":
                while self.i < len(self.text) and self.text[self.i] != "\n":
                    self.advance()
            else:
                return

    def record(self, path: Path_, line: int) -> None:
        self.positions.setdefault(path, line)

    # -- structure ---------------------------------------------------------
    def scan(self) -> dict[Path_, int]:
        table: Path_ = ()
        while True:
            self.skip_space(newlines=True)
            if self.i >= len(self.text):
                return self.positions
            if self.peek() == "[":
                table = self.header()
            else:
                self.key_value(table)

    def header(self) -> Path_:
        line = self.line
        is_aot = self.peek(1) == "["
        self.advance(2 if is_aot else 1)
        self.skip_space(newlines=False)
        keys = self.key()
        self.skip_space(newlines=False)
        self.advance(2 if is_aot else 1)
        path = self._resolve(keys)
        if is_aot:
            index = self.aot_counts.get(path, 0)
            self.aot_counts[path] = index + 1
            self.record(path, line)
            path = (*path, index)
        self.record(path, line)
        return path

    def _resolve(self, keys: tuple[str, ...]) -> Path_:
        """Insert the current index of every array of tables along a header path."""
        path: Path_ = ()
        for key in keys:
            path = (*path, key)
            if path in self.aot_counts and len(path) < len(keys):
                path = (*path, self.aot_counts[path] - 1)
        return path

    def key_value(self, table: Path_) -> None:
        line = self.line
        keys = self.key()
        path = (*table, *keys)
        self.record(path, line)
        self.skip_space(newlines=False)
        self.advance()  # '='
        self.skip_space(newlines=False)
        self.value(path)

    def key(self) -> tuple[str, ...]:
        parts: list[str] = []
        while True:
            self.skip_space(newlines=False)
            ch = self.peek()
            if ch in "\"'":
                parts.append(self.string(decode=True))
            else:
                match = _BARE_KEY.match(self.text, self.i)
                if not match:
                    break
                parts.append(match.group(0))
                self.advance(len(match.group(0)))
            self.skip_space(newlines=False)
            if self.peek() != ".":
                break
            self.advance()
        return tuple(parts)

    def value(self, path: Path_) -> None:
        ch = self.peek()
        if ch == "[":
            self.array(path)
        elif ch == "{":
            self.inline_table(path)
        elif ch in "\"'":
            self.string()
        else:
            while self.i < len(self.text) and self.text[self.i] not in ",]}\n#":
                self.advance()

    def array(self, path: Path_) -> None:
        self.advance()
        index = 0
        while True:
            self.skip_space(newlines=True)
            if self.peek() in ("]", ""):
                self.advance()
                return
            self.record((*path, index), self.line)
            self.value((*path, index))
            index += 1
            self.skip_space(newlines=True)
            if self.peek() == ",":
                self.advance()

    def inline_table(self, path: Path_) -> None:
        self.advance()
        while True:
            self.skip_space(newlines=True)
            if self.peek() in ("}", ""):
                self.advance()
                return
            self.key_value(path)
            self.skip_space(newlines=True)
            if self.peek() == ",":
                self.advance()

    def string(self, decode: bool = False) -> str:
        """Skip a string; its value only for a key (``decode``), else its raw text."""
        quote = self.peek()
        if self.text.startswith(quote * 3, self.i):
            end = self.text.find(quote * 3, self.i + 3)
            end = len(self.text) if end < 0 else end + 3
            while end < len(self.text) and self.text[end] == quote:
                end += 1  # up to two quotes may close a multi-line string
            raw = self.text[self.i:end]
            self.advance(end - self.i)
            return raw
        match = (_BASIC if quote == '"' else _LITERAL).match(self.text, self.i)
        raw = match.group(0) if match else self.text[self.i:]
        self.advance(len(raw))
        if not decode:
            return raw
        return tomllib.loads(f"k = {raw}")["k"] if quote == '"' else raw[1:-1]
