"""The logs pane's first-error jump (``E``) on a real vLLM that fails to start (issue 34).

vLLM 0.32's CPU build (tests/real_vllm_support.py) is served with a bad flag value: a
``--max-model-len`` above the model's 1024 positions, which vLLM refuses after a minute
of imports with a traceback. Its start-up log is real: banner, INFO lines, WARNINGs (one
says "failed to automatically increase with error"), then the traceback. Its own short
engine on a lent node, not the shared one: this one is meant to fail, and does while the
other tests run. No duration is asserted: serve waits for the engine's end.
"""

from __future__ import annotations

import asyncio
import re
import threading

from polling import eventually, eventually_async, pausing
from real_vllm_support import real_site, recipe

from sparktui.cli import main
from sparktui.tui.viewmodel.logtext import is_error_line
from tui.test_logs import LogsHarness

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _plain(text: str) -> str:
    return ANSI.sub("", text)


BAD = ["--max-model-len", "4096", "--enforce-eager", "--dtype", "float32"]


def _followed(s):
    """The engine's lines as the logs pane gets them: followed while it starts, until
    its container ends (serve removes a group that failed to start)."""
    async def go():
        engine = s.engine()
        try:
            return [line async for line in engine.logs("test", tail=5000, follow=True)
                    if not line.gap]
        finally:
            await engine.close()
    return asyncio.run(go())


async def _jump(lines) -> str:
    """The text ``E`` marks in a logs pane holding ``lines``."""
    app = LogsHarness()
    async with app.run_test(size=(160, 30)) as pilot:
        pane = app.pane
        pane.set_nodes(sorted({line.node for line in lines}))
        pane.add_lines(lines)
        await eventually_async(lambda: pane.view.line_count == len(lines), 60,
                               look=pausing(pilot))
        pane.view.focus()
        await eventually_async(lambda: pilot.app.focused is pane.view, look=pausing(pilot))
        await pilot.press("E")
        await eventually_async(lambda: pane.view.current is not None, look=pausing(pilot))
        y, start, end = pane.view.current
        return pane.view.text_at(y)[start:end]


def test_first_error_jumps_to_vllms_refusal_of_a_bad_flag(site, capsys):
    s = real_site(site(1, top="ready_timeout_seconds = 900"))
    s.recipe("bad", recipe(port=30343, args=BAD))
    node = s.hosts.node("node1")
    result: list[int] = []
    serve = threading.Thread(target=lambda: result.append(main(s.cli("serve", "bad"))))
    serve.start()
    try:
        eventually(lambda: "sparktui-bad" in node.containers(), 600, "the engine started",
                   every=0.2)
        lines = _followed(s)
    finally:
        serve.join()
    out = capsys.readouterr()
    assert result != [0], out
    texts = [line.text for line in lines]
    cause = next((i for i, t in enumerate(texts) if "max_model_len" in t and "4096" in t
                  and "non-default args" not in t), None)
    assert cause is not None, (out, texts)
    warned = [i for i, t in enumerate(texts) if "WARNING" in t and "error" in t]
    marked = asyncio.run(_jump(lines))
    # vLLM's error report, not a WARNING that says "error", and at or before the cause
    assert "WARNING" not in marked and is_error_line(marked), marked
    assert "Traceback" in marked or "ERROR" in marked or "Error" in marked, marked
    at = next(i for i, t in enumerate(texts) if marked.strip() in _plain(t))
    assert at <= cause, (at, cause, texts[at:cause + 1])
    assert warned and all(_plain(texts[w]) != marked for w in warned), warned
