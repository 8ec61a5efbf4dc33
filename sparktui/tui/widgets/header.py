"""The header line: cluster in focus, what it serves, read-only mark, age of the data."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from sparktui.engine.api import KV_SHARE, ClusterHealth, TelemetryFrame
from sparktui.fmt import format_optional
from sparktui.i18n import _, ngettext
from sparktui.tui.viewmodel.health import human_duration, serving_of
from sparktui.tui.viewmodel.supervision import supervision_mark
from sparktui.tui.widgets.paint import show_line
from sparktui.tui.widgets.spark import pct, rate, sparkline

SPARK = 12  # header sparklines: the last 24 s at the default interval
WIDE = 160  # columns from which the header shows every live figure
NARROW = 100  # under it --watch's header leaves to the wall what the wall shows


@dataclass(frozen=True)
class HeaderState:
    cluster: str = ""
    nodes: int = 0
    health: ClusterHealth | None = None
    error: str | None = None  # the last health check failed
    connected: bool = False
    watch: bool = False
    stale_after: float = 30.0
    telemetry: TelemetryFrame | None = None  # the last sample of this cluster


def _num(value: float | None) -> str:
    return format_optional(value)


def describe(state: HeaderState, compact: bool = False) -> Text:
    """Left part: ``sparktui  2nodes (2 nodes)  ● serving qwen3 :30000 run 2 wait 0``.

    ``compact`` (--watch under 100 columns): ``2nodes  ● serving qwen3 :30000``, without
    the name of the program, the count of nodes (the clusters pane has it) and running/
    waiting (the wall's tile has them), so what serves fits at 80 columns; a longer
    name is cut at its end with an ellipsis, never wrapped out of sight.
    """
    text = (Text(" ", no_wrap=True, overflow="ellipsis") if compact
            else Text.assemble((" sparktui ", "bold reverse"), "  "))
    if state.cluster:
        text.append(state.cluster, style="bold")
        if not compact:
            text.append(" (" + ngettext("{n} node", "{n} nodes", state.nodes).format(
                n=state.nodes) + ")", style="dim")
        text.append("  ")
    if state.health is None:
        text.append("○ " + (_("checking…") if state.connected else _("not connected")),
                    style="dim")
        return text
    serving = serving_of(state.health)
    if serving.state == "serving":
        text.append("● " + _("serving") + " ", style="bold green")
        text.append(serving.model or serving.recipe, style="bold")
        if serving.port:
            text.append(f" :{serving.port}")
        if serving.others:
            text.append(f" +{serving.others}", style="bold green")
        if not serving.services_only and not compact:
            text.append("  " + _("running") + f" {_num(serving.running)}  " + _("waiting")
                        + f" {_num(serving.waiting)}", style="")
    elif serving.state == "starting":
        text.append("◐ " + _("starting") + f" {serving.recipe}", style="yellow")
    elif serving.state == "stopped":
        text.append("○ " + _("stopped") + f" {serving.recipe}", style="dim")
    elif serving.state == "unknown":  # the marks below say which node did not answer
        text.append("? " + _("unknown"), style="bold yellow")
    else:
        text.append("○ " + _("idle"), style="dim")
    if not state.health.all_reachable:
        down = sum(1 for n in state.health.nodes if not n.reachable)
        text.append("  ✖ " + ngettext("{n} unreachable", "{n} unreachable", down).format(n=down),
                    style="bold red")
    blind = sum(1 for n in state.health.nodes if n.reachable and n.docker_error is not None)
    if blind:
        text.append("  ✖ " + ngettext("docker down on {n} node", "docker down on {n} nodes",
                                      blind).format(n=blind), style="bold red")
    return text


def live_figures(state: HeaderState, wide: bool = True) -> Text:
    """Middle part: ``gen 512 tok/s ▂▃▅▇ KV 31% ▃▄▅`` and the count of active alerts.

    Narrow (``wide`` False): the sparkline and the figures only; the alerts strip below
    the header already shows what fired.
    """
    text = Text()
    frame = state.telemetry
    if frame is None:
        return text
    engine = frame.engine
    if engine is not None and engine.error is None:
        series = frame.history.get("engine.gen_tps", ())
        text.append("  ")
        if wide:
            text.append(_("gen") + " ", style="dim")
        text.append(sparkline(series, SPARK if wide else SPARK // 2, lo=0) + " ",
                    style="cyan")
        text.append(_("{rate} tok/s").format(rate=rate(engine.gen_tps)), style="bold")
        if wide:
            text.append("  " + _("KV") + " ", style="dim")
            kv = None if engine.kv_cache is None else engine.kv_cache * 100
            text.append(pct(kv), style="bold red" if kv is not None and kv > KV_SHARE * 100
                        else "bold")
            kv_series = tuple(None if v is None else v * 100
                              for v in frame.history.get("engine.kv_cache", ()))
            text.append(" " + sparkline(kv_series, SPARK, lo=0, hi=100), style="cyan")
    active = len(frame.active_alerts)
    if active and wide:
        text.append("  ")
        text.append(" ⚠ " + ngettext("{n} alert", "{n} alerts", active).format(n=active) + " ",
                    style="bold reverse red")
    if text:
        text.append("  ")
    return text


def freshness(state: HeaderState, now: float, wide: bool = True) -> Text:
    """Right part: supervision (narrow: without its count of restarts, which the alerts
    strip has), READ-ONLY mark and ``updated 4s ago``."""
    text = Text()
    if state.error:
        text.append("⚠ " + state.error + "  ", style="bold red")
    if state.health is not None:
        mark = supervision_mark(state.health.supervision, now, short=not wide,
                                serving=state.health.serving)
        if mark is not None:
            text.append(mark.text, style=mark.style)
            text.append("  ")
        age = max(0.0, now - state.health.checked_at)
        style = "bold yellow" if age > state.stale_after else "dim"
        text.append(_("updated {age} ago").format(age=human_duration(age)), style=style)
    if state.watch:
        text.append("  ")
        text.append(" " + _("READ-ONLY") + " ", style="bold reverse yellow")
    text.append(" ")
    return text


class StatusHeader(Horizontal):
    def __init__(self, clock: Callable[[], float], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.clock = clock
        self.state = HeaderState()

    def compose(self) -> ComposeResult:
        yield Static(id="header-left")
        yield Static(id="header-live")
        yield Static(id="header-right")

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)
        self._paint()

    def on_resize(self) -> None:
        self._paint()

    def update_state(self, state: HeaderState) -> None:
        self.state = state
        self._paint()

    def _tick(self) -> None:
        if self.state.health is not None:
            self._paint()

    def _paint(self) -> None:
        if not self.is_mounted:
            return
        compact = self.state.watch and self.size.width < NARROW
        show_line(self.query_one("#header-left", Static), describe(self.state, compact))
        wide = self.size.width >= WIDE
        live = Text() if self.state.watch and not wide else live_figures(self.state, wide)
        show_line(self.query_one("#header-live", Static), live)  # narrow --watch: the wall has it
        show_line(self.query_one("#header-right", Static), freshness(self.state, self.clock(),
                                                                      wide))
