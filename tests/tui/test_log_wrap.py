"""Wrapped log lines break at word boundaries; a word longer than the line is cut."""

from __future__ import annotations

import itertools
import random

import pytest
from rich.cells import cell_len

from sparktui.engine.status import LogLine
from sparktui.tui.viewmodel.logtext import format_line, word_wrap

WORDS = ["INFO", "loading", "safetensors", "shard", "1/12", "мир", "дружба", "中文字符",
         "テスト", "x" * 30, "NCCL_IB_GID_INDEX=3", ""]


def _check(text: str, room: int) -> None:
    pieces = word_wrap(text, room)
    assert "".join(pieces) == text
    for piece, after in itertools.pairwise(pieces):
        assert cell_len(piece) <= room
        # a break inside a word only where the piece has no space to break at
        if not piece.endswith(" ") and not after.startswith(" "):
            assert " " not in piece, (pieces, room)
    assert cell_len(pieces[-1]) <= room


@pytest.mark.parametrize("seed", range(40))
def test_pieces_join_back_fit_and_break_at_spaces(seed: int) -> None:
    rng = random.Random(seed)
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 40)))
    for room in (8, 13, 20, 41):
        _check(text, room)


def test_a_log_line_wraps_between_words() -> None:
    line = LogLine("spark1", "INFO 06-15 15:06:00 [loader.py:100] loading safetensors shard 1/12")
    assert format_line(line, "spark1 │ ", "       │ ", 40) == [
        "spark1 │ INFO 06-15 15:06:00 ",
        "       │ [loader.py:100] loading ",
        "       │ safetensors shard 1/12"]
