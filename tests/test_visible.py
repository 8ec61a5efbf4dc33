"""The one terminal filter: what the CLI prints, saved logs and the dashboard's paint."""

from __future__ import annotations

import io
import json

from rich.segment import Segment
from textual.color import Color

from sparktui.tui.markup import NoControlFilter
from sparktui.visible import TERMINAL_CONTROL, TerminalSafeWriter, terminal_safe, write_control

ACTED_ON = [chr(c) for c in (*range(0x20), *range(0x7f, 0xa0))] + [
    "\u061c", "\u200e", "\u200f", "\u2028", "\u2029", "\u202a", "\u202e", "\u2066", "\u2069"]


def test_every_character_a_terminal_acts_on_is_escaped_but_tab_and_newline():
    for char in ACTED_ON:
        safe = terminal_safe(f"a{char}b")
        if char in "\t\n":
            assert safe == f"a{char}b"
        else:
            assert safe.startswith("a\\") and safe.endswith("b") and char not in safe, repr(char)


def test_colours_go_and_every_other_sequence_is_defused():
    text = "\x1b[1;31mERROR\x1b[0m \x1b]0;title\x07 \x1bc \x1b(0 \x9b2J \x1b[2J"
    assert terminal_safe(text) == "ERROR \\x1b]0;title\\x07 \\x1bc \\x1b(0 \\x9b2J \\x1b[2J"
    assert terminal_safe("plain ünïcode ✓ 日本") == "plain ünïcode ✓ 日本"


def test_the_dashboard_drops_the_same_characters():
    painted = NoControlFilter().apply([Segment("".join(ACTED_ON) + "ok")], Color(0, 0, 0))
    assert [s.text for s in painted] == ["ok"]
    assert all(TERMINAL_CONTROL.fullmatch(c) for c in ACTED_ON)


def test_json_passes_the_cli_writer_unchanged_and_own_sequences_pass_as_they_are():
    out = io.StringIO()
    writer = TerminalSafeWriter(out)
    text = json.dumps({"model": "m" + "".join(ACTED_ON)}, indent=2)
    writer.write(text)
    assert out.getvalue() == text and json.loads(out.getvalue())["model"].startswith("m\x00")
    write_control(writer, "\x1b[H\x1b[2J")
    assert out.getvalue().endswith("\x1b[H\x1b[2J")
