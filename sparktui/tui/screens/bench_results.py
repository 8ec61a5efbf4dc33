"""The benchmark runs kept (``sparktui bench``): tokens/s and TTFT p50 against
concurrency, one line per run, so two runs compare at a glance; the runs' list below.
Read-only: it reads the files in the data folder, nothing on a cluster."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static
from textual_plotext import PlotextPlot

from sparktui.config.bench_result import BenchRun
from sparktui.i18n import _
from sparktui.plan.bench.render import list_text
from sparktui.tui.widgets.footer import FittingFooter
from sparktui.visible import shorten, visible

SHOWN = 6
"""Lines in a plot: the newest runs (more would not tell apart in a terminal)."""


def _label(run: BenchRun) -> str:
    return shorten(visible(run.id), 40)


class BenchPlot(PlotextPlot):
    """One figure of every run shown, against concurrency (log scale: 1, 4, 16, ...)."""

    def __init__(self, runs: list[BenchRun], figure: str, title: str, *, id: str) -> None:
        super().__init__(id=id)
        self.runs, self.figure, self.title = runs, figure, title

    def on_mount(self) -> None:
        plt = self.plt
        plt.title(self.title)
        plt.xlabel(_("concurrency"))
        levels = sorted({lv.concurrency for r in self.runs for lv in r.levels})
        if levels:
            plt.xticks([float(c) for c in levels], [str(c) for c in levels])
            plt.xscale("log")
        for run in self.runs:
            points = [(lv.concurrency, value) for lv in run.levels
                      if (value := self.value(lv)) is not None]
            if points:
                plt.plot([c for c, _ in points], [v for _, v in points], marker="braille",
                         label=_label(run))

    def value(self, level) -> float | None:
        if self.figure == "ttft":
            return None if level.ttft.p50 is None else level.ttft.p50 * 1000
        return level.output_tokens_per_second


class BenchResultsScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "close", _("Close"), id="bench_results.close"),
                Binding("b", "close", _("Close"), show=False, id="bench_results.b")]

    def __init__(self, runs: list[BenchRun], problems: list[str], folder: str) -> None:
        super().__init__()
        self.runs, self.problems, self.folder = runs, problems, folder

    def compose(self) -> ComposeResult:
        shown = self.runs[-SHOWN:]
        with Vertical(id="bench-box", classes="modal-box") as box:
            box.border_title = _("Benchmark runs")
            box.border_subtitle = _("Esc closes")
            if self.runs:
                with Horizontal(id="bench-plots"):
                    yield BenchPlot(shown, "tokens", _("output tokens/s"), id="bench-tokens")
                    yield BenchPlot(shown, "ttft", _("TTFT p50 ms"), id="bench-ttft")
                text = Text(list_text(self.runs).rstrip("\n"), no_wrap=True,
                            overflow="ellipsis")
            else:
                text = Text(_("no benchmark runs kept yet; run: sparktui bench RECIPE"))
            for problem in self.problems:
                text.append("\n" + shorten(visible(problem), 200), style="yellow")
            with VerticalScroll(id="bench-list"):
                yield Static(text, id="bench-list-text")
        yield FittingFooter()

    def action_close(self) -> None:
        self.dismiss(None)
