"""The logs pane's search, level filter, first-error jump and save; and how lines are read."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from polling import eventually_async, pausing

from sparktui.engine.status import LogLine
from sparktui.tui.viewmodel.logtext import (
    DEBUG,
    ERROR,
    INFO,
    WARNING,
    classify,
    is_error_line,
    log_file_name,
    pick_match,
    search_pattern,
)
from tui.support import NOW, open_and_type
from tui.test_logs import LogsHarness, lines


def levels(texts: list[str]) -> list[int]:
    out, previous = [], INFO
    for text in texts:
        previous = classify(text, previous)
        out.append(previous)
    return out


# -- reading lines (no Textual) -----------------------------------------------------------


@pytest.mark.parametrize(("text", "level"), [
    ("INFO 06-15 15:06:01 [loader.py:100] loading safetensors", INFO),
    ("WARNING 06-15 15:06:01 [config.py:7] Casting torch.bfloat16", WARNING),
    ("(VllmWorker rank=1 pid=233) ERROR 06-15 15:06:01 [multiproc.py:9] hit an exception", ERROR),
    ("DEBUG 06-15 15:06:01 [utils.py:1] nothing to see", DEBUG),
    ('INFO:     127.0.0.1:40120 - "GET /health HTTP/1.1" 200 OK', INFO),
    ("ERROR:    Exception in ASGI application", ERROR),
    ("[2025-06-15 15:06:01 TP0] Load weight begin. avail mem=110.3 GB", INFO),
    ("[W socket.cpp:464] [c10d] The server socket has failed to bind", WARNING),
    ("\x1b[1;33mWARNING\x1b[0m NCCL_IB_GID_INDEX is set", WARNING),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", ERROR),
    ("misc.cc:123 NCCL error: unhandled system error", ERROR),
    ("INFO 06-15 [x.py:1] request failed with ERROR 500", INFO),  # the level comes first
])
def test_classify_engine_formats(text: str, level: int):
    assert classify(text) == level


def test_traceback_lines_after_an_error_stay_errors():
    texts = [
        "ERROR 06-15 15:07:00 [core.py:12] EngineCore failed",
        "Traceback (most recent call last):",
        '  File "/usr/lib/python3/vllm/core.py", line 12, in run',
        "    self.step()",
        "    ^^^^^^^^^^^",
        "",
        "The above exception was the direct cause of the following exception:",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
        "INFO 06-15 15:07:05 [api_server.py:9] Shutting down",
        "[2025-06-15 15:07:06 TP0] Prefill batch. #new-seq: 1",
    ]
    assert levels(texts) == [ERROR] * 8 + [INFO, INFO]


def test_indented_lines_continue_their_record_and_bare_lines_are_info():
    assert levels(["WARNING 06-15 [a.py:1] slow:", "    detail", "plain text"]) == \
        [WARNING, WARNING, INFO]


def test_error_lines_and_search_patterns():
    assert is_error_line("ERROR 06-15 [core.py:1] boom")
    assert is_error_line("(raylet) Traceback (most recent call last):")
    assert is_error_line("torch.OutOfMemoryError: CUDA out of memory.")
    assert not is_error_line("INFO 06-15 [core.py:1] retrying after an error")
    assert search_pattern("") is None
    assert search_pattern("nccl").search("NCCL INFO ready")  # lower case: any case
    assert not search_pattern("NCCL").search("nccl info ready")  # a capital: exact case
    assert search_pattern("a.b").search("a.b") and not search_pattern("a.b").search("axb")


def test_pick_match_wraps_and_anchors():
    matches = [(2, 0, 1), (5, 0, 1), (9, 0, 1)]
    assert pick_match(matches, None, 0, None) == 2  # following: the latest
    assert pick_match(matches, None, 0, 4) == 1  # the first at or below the anchor
    assert pick_match(matches, None, 0, 10) == 0  # none below: wrap to the first
    assert pick_match(matches, None, -1, 5) == 0  # previous: the last above
    assert pick_match(matches, 2, 1, None) == 0 and pick_match(matches, 0, -1, None) == 2


def test_log_file_name():
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(NOW))
    assert log_file_name("2nodes", NOW) == f"sparktui-logs-2nodes-{stamp}.log"
    assert log_file_name("a/b c", NOW).startswith("sparktui-logs-a_b_c-")


# -- the pane -------------------------------------------------------------------------------


def loading(count: int = 60) -> list[LogLine]:
    return [LogLine("spark1" if i % 2 == 0 else "spark2",
                    f"INFO 06-15 15:06:{i % 60:02d} [loader.py:{100 + i}] loading shard {i}")
            for i in range(count)]


async def test_search_finds_highlights_and_pauses():
    app = LogsHarness()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.pane
        pane.add_lines(loading())
        await app.shown(pilot, 60)
        pane.view.focus()
        await eventually_async(lambda: pilot.app.focused is pane.view, look=pausing(pilot))
        await open_and_type(pilot, "slash", *"shard 1")  # incremental: jumps while typing
        await pilot.pause(0.1)
        assert pane.search == "shard 1"
        view = pane.view
        matches = view.matches()
        assert [view.text_at(y)[s:e] for y, s, e in matches] == ["shard 1"] * 11
        assert matches[0][0] == 1 and all(s >= view.prefix for _, s, _ in matches)
        # while following, the search starts from the latest match
        assert pane.match_index == 10 and view.current == matches[10]
        assert not pane.follow  # the view holds still under the reader
        y = view.current[0]
        assert view.scroll_y <= y < view.scroll_y + view.scrollable_content_region.height
        # the current match and the other visible ones are styled when drawn
        strip = view.render_line(y - round(view.scroll_y))
        current = view.get_component_rich_style("logview--current")
        assert any(seg.text == "shard 1" and seg.style.bgcolor == current.bgcolor
                   for seg in strip)
        await pilot.press("enter")
        await pilot.pause()
        assert app.focused is view and not pane.query_one("#logs-search").display
        assert "“shard 1” 11/11" in pane.border_subtitle


async def test_next_and_previous_match_wrap_around():
    app = LogsHarness()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.pane
        pane.add_lines(loading())
        await app.shown(pilot, 60)
        pane.view.focus()
        await eventually_async(lambda: pilot.app.focused is pane.view, look=pausing(pilot))
        await open_and_type(pilot, "slash", *"shard 2", "enter")
        await pilot.pause(0.1)
        assert pane.match_index == 10  # shard 2, 20..29: the latest is shard 29
        await pilot.press("n")
        assert pane.match_index == 0  # wraps to the first
        first = pane.view.current
        assert pane.view.text_at(first[0]).endswith("shard 2")
        await pilot.press("n", "n")
        assert pane.match_index == 2
        assert pane.view.text_at(pane.view.current[0]).endswith("shard 21")
        await pilot.press("N", "N", "N")
        assert pane.match_index == 10
        assert "“shard 2” 11/11" in pane.border_subtitle
        await pilot.press("escape")  # in the view: clears the search
        await pilot.pause()
        assert pane.search == "" and pane.view.pattern is None and pane.view.current is None


async def test_search_without_a_match_says_so():
    app = LogsHarness()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.pane
        pane.add_lines(loading(10))
        await app.shown(pilot, 10)
        pane.view.focus()
        await eventually_async(lambda: pilot.app.focused is pane.view, look=pausing(pilot))
        await open_and_type(pilot, "slash", *"zq")
        await pilot.pause()
        assert pane.view.matches() == [] and pane.view.current is None
        assert "no match" in pane.border_subtitle
        assert pane.follow  # nothing to show: the view keeps following
        pane.search = "spark1"  # node tags are not searched
        await pilot.pause()
        assert pane.view.matches() == [] and pane.view.current is None


async def test_level_filter_cycles_error_warning_info_all():
    app = LogsHarness()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.pane
        pane.add_lines([
            LogLine("spark1", "INFO 06-15 [a.py:1] starting"),
            LogLine("spark2", "WARNING 06-15 [b.py:2] slow"),
            LogLine("spark1", "ERROR 06-15 [c.py:3] failed"),
            LogLine("spark1", "Traceback (most recent call last):"),
            LogLine("spark2", "DEBUG 06-15 [d.py:4] detail"),
            LogLine("spark1", '  File "c.py", line 3, in run'),
            LogLine("spark1", "ValueError: bad"),
            LogLine("spark2", "INFO 06-15 [b.py:5] fine"),
        ])
        await app.shown(pilot, 8)
        pane.view.focus()
        await eventually_async(lambda: pilot.app.focused is pane.view, look=pausing(pilot))
        await pilot.press("v")
        await pilot.pause(0.1)
        assert pane.level == ERROR and "ERROR+" in pane.border_subtitle
        assert [line.split(" │ ")[1] for line in pane.view.lines] == [
            "ERROR 06-15 [c.py:3] failed", "Traceback (most recent call last):",
            '  File "c.py", line 3, in run', "ValueError: bad"]
        await pilot.press("v")
        await pilot.pause(0.1)
        assert pane.level == WARNING and pane.view.line_count == 5
        await pilot.press("v")
        await pilot.pause(0.1)
        assert pane.level == INFO and pane.view.line_count == 7  # DEBUG hidden
        pane.add_lines([LogLine("spark2", "DEBUG 06-15 [d.py:9] more")])
        await pilot.pause(0.1)
        assert pane.view.line_count == 7  # new lines are filtered too
        await pilot.press("v")
        await pilot.pause(0.1)
        assert pane.level == 0 and pane.view.line_count == 9


async def test_jump_to_the_first_error():
    app = LogsHarness()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.pane
        before = loading(80)
        before[30] = LogLine("spark2", "misc/socket.cc:50 NCCL error: remote process exited")
        before[55] = LogLine("spark1", "torch.OutOfMemoryError: CUDA out of memory.")
        pane.add_lines(before)
        await app.shown(pilot, 80)
        pane.view.focus()
        await eventually_async(lambda: pilot.app.focused is pane.view, look=pausing(pilot))
        await pilot.press("E")
        await pilot.pause()
        view = pane.view
        assert not pane.follow
        y, start, end = view.current
        assert y == 30 and view.text_at(y)[start:end].startswith("misc/socket.cc:50 NCCL error")
        assert view.scroll_y <= y < view.scroll_y + view.scrollable_content_region.height
        pane.clear()
        pane.add_lines(loading(5))
        await app.shown(pilot, 5)
        await pilot.press("E")
        assert app._notifications and "no error line" in list(app._notifications)[-1].message


async def test_save_writes_the_view_with_node_tags(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = LogsHarness()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.pane
        pane.cluster, pane.clock = "2nodes", lambda: NOW
        pane.add_lines([LogLine("spark1", "INFO one"),
                        LogLine("spark2", "\x1b[31mERROR two\x1b[0m"),
                        LogLine("spark1", "INFO three"), LogLine("spark1", "", gap=True)])
        await app.shown(pilot, 4)
        pane.view.focus()
        await eventually_async(lambda: pilot.app.focused is pane.view, look=pausing(pilot))
        await pilot.press("c")  # one node in view: the file still says which node
        await pilot.pause(0.1)
        await pilot.press("ctrl+s")
        await pilot.pause()
        path = tmp_path / log_file_name("2nodes", NOW)
        assert pane.saved_path == path
        assert path.read_text(encoding="utf-8") == (
            "spark1 │ INFO one\nspark1 │ INFO three\nspark1 │ ⋯ log stream reconnected ⋯\n")
        await pilot.press("c", "v")  # spark2 alone, ERROR+
        await pilot.pause(0.1)
        await pilot.press("ctrl+s")
        await pilot.pause()
        second = path.with_name(path.name.replace(".log", "-2.log"))
        assert pane.saved_path == second
        assert second.read_text(encoding="utf-8") == "spark2 │ ERROR two\n"
        assert str(second) in list(app._notifications)[-1].message
        assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


async def test_flood_keeps_the_view_bounded_with_a_search_on():
    app = LogsHarness(max_lines=200)
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.pane
        pane.search = "line 9"
        for batch in range(10):
            pane.add_lines(lines("spark1", 500, start=batch * 500))
            await pilot.pause(0.06)
        await pilot.press("f")
        await pilot.pause(0.1)
        assert pane.view.line_count == 200 and len(pane.buffers["spark1"]) == 200
        assert pane.view.lines[-1].endswith("line 4999")
