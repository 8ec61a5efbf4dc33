"""The wall screen's big figures (``--watch``): one tile per figure of the cluster in focus.

Each tile: what it is, the value in large digits, and a sparkline of the last minutes
(or a short note) under it. Narrow (under 100 columns, app.tcss ``.-narrow``) the six
tiles are a 3x2 grid of two lines each: what it is, then the value in bold, the note and
the sparkline (``compact``), so no label is cut at 80 columns. Values come from the last
``TelemetryFrame``; nothing here calls the engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Digits, Static

from sparktui.engine.api import KV_SHARE, MEMORY_PCT, TelemetryFrame
from sparktui.i18n import N_, _
from sparktui.tui.widgets.paint import show
from sparktui.tui.widgets.spark import millis, sparkline

TILES = {"gen": N_("out tok/s"), "prompt": N_("in tok/s"), "requests": N_("running"),
         "kv": N_("KV cache %"), "ttft": N_("TTFT p95 ms"), "mem": N_("max mem %")}


@dataclass(frozen=True)
class Tile:
    value: str
    series: tuple[float | None, ...] = ()
    note: str = ""
    hot: bool = False
    hi: float | None = None


def _int(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def tiles(frame: TelemetryFrame | None) -> dict[str, Tile]:
    """What each tile shows for a frame (plain values, testable without Textual)."""
    if frame is None:
        return {key: Tile("-") for key in TILES}
    h = frame.history
    e = frame.engine if frame.engine is not None and frame.engine.error is None else None
    kv = [None if v is None else v * 100 for v in h.get("engine.kv_cache", ())]
    ttft = [None if v is None else v * 1000 for v in h.get("engine.ttft_p95", ())]
    busiest = max((n for n in frame.nodes if n.mem_pct is not None),
                  key=lambda n: n.mem_pct or 0, default=None)
    return {
        "gen": Tile(_int(e.gen_tps) if e is not None else "-", h.get("engine.gen_tps", ())),
        "prompt": Tile(_int(e.prompt_tps) if e is not None else "-",
                       h.get("engine.prompt_tps", ())),
        "requests": Tile(_int(e.running) if e is not None else "-", h.get("engine.running", ()),
                         _("waiting {n}").format(n=_int(e.waiting)) if e is not None else "",
                         hot=e is not None and bool(e.waiting) and not (e.gen_tps or 0) > 0),
        "kv": Tile(_int(None if e is None or e.kv_cache is None else e.kv_cache * 100),
                   tuple(kv), hot=e is not None and (e.kv_cache or 0) > KV_SHARE, hi=100),
        "ttft": Tile(_int(None if e is None or e.ttft_p95 is None else e.ttft_p95 * 1000),
                     tuple(ttft),
                     _("p50 {t}").format(t=millis(e.ttft_p50)) if e is not None else ""),
        "mem": Tile(_int(busiest.mem_pct) if busiest else "-",
                    h.get(f"{busiest.node}.mem_pct", ()) if busiest else (),
                    busiest.node if busiest else "",
                    hot=busiest is not None and (busiest.mem_pct or 0) > MEMORY_PCT,
                    hi=100),
    }


class WallPane(Horizontal):
    """Shown in ``--watch`` only (the stylesheet hides it on the dashboard)."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.frame: TelemetryFrame | None = None

    def compose(self) -> ComposeResult:
        for key, title in TILES.items():
            with Vertical(id=f"tile-{key}", classes="tile"):
                yield Static(_(title), classes="tile-title")
                yield Digits("-", classes="tile-value")
                yield Static("", classes="tile-spark")
                yield Static("", classes="tile-compact")

    def show(self, frame: TelemetryFrame | None) -> None:
        self.frame = frame
        self._paint()

    def on_resize(self) -> None:
        self._paint()

    def _paint(self) -> None:
        if not self.is_mounted:
            return
        for key, tile in tiles(self.frame).items():
            box = self.query_one(f"#tile-{key}", Vertical)
            box.set_class(tile.hot, "-hot")
            box.query_one(Digits).update(tile.value)
            width = max(1, box.size.width - 2)
            show(box.query_one(".tile-spark", Static), _line(key, tile, width))
            show(box.query_one(".tile-compact", Static), compact(key, tile, width))


def _line(key: str, tile: Tile, width: int, head: Text | None = None) -> Text:
    """``head`` (if any), the tile's note and its sparkline in what is left of ``width``."""
    line = Text(no_wrap=True, overflow="ellipsis") if head is None else head
    if tile.note:
        line.append(tile.note + " ", style="bold")
    lo = 0 if tile.hi is not None or key in ("gen", "prompt", "requests") else None
    line.append(sparkline(tile.series, max(0, width - line.cell_len), lo=lo, hi=tile.hi),
                style="red" if tile.hot else "cyan")
    return line


def compact(key: str, tile: Tile, width: int) -> Text:
    """The narrow tile's second line: ``512 ▂▃▅▇``, ``2 waiting 1``, ``93 spark1 ▇▇``."""
    head = Text(no_wrap=True, overflow="ellipsis")
    head.append(tile.value + " ", style="bold red" if tile.hot else "bold")
    return _line(key, tile, width, head)
