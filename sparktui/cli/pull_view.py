"""What ``sparktui pull`` shows while it runs: on a terminal a progress bar per node and
one for the total (bytes, rate, time left: rich derives them from the byte counts the
engine reports); with ``--json`` one JSON object per line (each step, each byte count,
the result); otherwise the steps as lines.

Why a module of its own: the command (``pull_cmd``) decides what to do, this decides
how it looks, and the dashboard will show the same values its own way.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from sparktui.cli.output import print_json_line, print_progress, state_word
from sparktui.engine.api import Progress as Step
from sparktui.engine.api import Transfer
from sparktui.i18n import _
from sparktui.labels import step_label
from sparktui.scrub import scrub
from sparktui.visible import visible


class PullView:
    """The sinks a pull's parts report to (``step``, ``transfer``); a context manager
    around the parts, so the bars end with them, Ctrl+C included."""

    def __init__(self, *, json: bool, terminal: bool) -> None:
        self.json = json
        self.bars: Progress | None = None
        self.tasks: dict[tuple[str, str], TaskID] = {}
        self.last: dict[tuple[str, str], Transfer] = {}
        self.total: TaskID | None = None
        self.steps: list[Step] = []
        if terminal and not json:
            self.bars = Progress(TextColumn("{task.description}"), BarColumn(),
                                 DownloadColumn(binary_units=True), TransferSpeedColumn(),
                                 TimeRemainingColumn(), console=Console(file=sys.stdout))

    def __enter__(self) -> PullView:
        if self.bars is not None:
            self.bars.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self.bars is not None:
            self.bars.stop()

    def step(self, event: Step) -> None:
        self.steps.append(event)
        if self.json:
            print_json_line(event.as_json())
        elif self.bars is not None:
            node = event.node or "-"
            detail = f"  {event.detail}" if event.detail else ""
            line = f"{node:<12} {step_label(event.step):<13} {state_word(event.state):<6}{detail}"
            self.bars.console.print(escape(visible(scrub(line))), highlight=False)
        else:
            print_progress(event)

    def transfer(self, moved: Transfer) -> None:
        if self.json:
            print_json_line(moved.as_json())
            return
        if self.bars is None:
            return
        key = (moved.kind.value, moved.node)
        self.last[key] = moved
        if self.total is None:  # the first row: the total, the nodes below it
            self.total = self.bars.add_task(escape(_("all nodes")), total=None)
        if key not in self.tasks:
            label = _("{node} from {source}").format(node=moved.node, source=moved.source)
            self.tasks[key] = self.bars.add_task(escape(label), total=moved.total or None)
        self.bars.update(self.tasks[key], completed=moved.done, total=moved.total or None)
        done = sum(t.done for t in self.last.values())
        total = sum(t.total for t in self.last.values())
        self.bars.update(self.total, completed=done, total=total or None)

    def result(self, line: dict[str, Any]) -> None:
        """The last line of ``--json``."""
        if self.json:
            print_json_line(line)
