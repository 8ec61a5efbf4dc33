"""Snapshots of a serve the memory fit refused, as the dashboard's progress view shows
it: a "memory fit" row per node with its numbers, and the refusal below (at 80x24 and
120x40). The rows and the detail are what ``Serve`` sends (``sparktui.plan.fit.text``),
computed from DeepSeek-V3's real config.json.

Update only these with:
python -m pytest -n 0 tests/tui/test_snapshots_fit.py --snapshot-update
"""

from __future__ import annotations

import json
from pathlib import Path

from sparktui.engine.api import ActionResult, Progress
from sparktui.plan.fit.calc import Layout, node_fit
from sparktui.plan.fit.settings import parse_settings
from sparktui.plan.fit.shape import parse_shape
from sparktui.plan.fit.text import node_line, refusal
from sparktui.tui.actions import Action
from sparktui.tui.screens.progress import ProgressScreen
from sparktui.tui.viewmodel.runs import ActionRun
from tui.support import NOW, fixed_clock
from tui.test_snapshots_actions import Host, _settle

CONFIG = Path(__file__).resolve().parent.parent / "data" / "model-configs" / "deepseek-v3.json"
MEM_TOTAL = 128_002_000_000  # a GB10's MemTotal, about 119.2 GiB


def _refused_run() -> ActionRun:
    shape = parse_shape(json.loads(CONFIG.read_text()))
    settings = parse_settings("vllm", ["--max-model-len", "32768"], 2)
    fits = [node_fit(node, MEM_TOTAL, 688_586_727_753, "index", shape, settings,
                     Layout("vllm", 2, 1, 2)) for node in ("spark1", "spark2")]
    events = [Progress("preflight", n, "started") for n in ("spark1", "spark2")]
    events += [Progress("preflight", n, "ok", "sha256:" + "3f" * 32) for n in ("spark1", "spark2")]
    events += [Progress("fit", f.node, "failed", node_line(f)) for f in fits]
    run = ActionRun(1, Action.SERVE, "2nodes", "deepseek-v3", NOW - 3,
                    url="http://10.0.0.11:30000/v1", events=events)
    run.result = ActionResult(False, "spark1", "fit", refusal(fits), events)
    run.finished_at = NOW - 2
    return run


def test_progress_refused_by_the_memory_fit(snap_compare):
    assert snap_compare(Host(ProgressScreen(_refused_run(), fixed_clock)),
                        terminal_size=(120, 40), run_before=_settle)


def test_progress_refused_by_the_memory_fit_80x24(snap_compare):
    assert snap_compare(Host(ProgressScreen(_refused_run(), fixed_clock)),
                        terminal_size=(80, 24), run_before=_settle)
