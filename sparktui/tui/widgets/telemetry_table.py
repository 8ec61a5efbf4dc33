"""The per-node telemetry table under the nodes list: figures and their sparklines.

Laid out by hand (fixed columns, the kernel line takes what is left and is cut with an
ellipsis) so a long kernel message never squeezes the figures.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text

from sparktui.config.models import Cluster
from sparktui.engine.api import (
    KV_SHARE,
    EngineFigures,
    NodeFigures,
    TelemetryFrame,
    history_key,
)
from sparktui.fmt import format_optional
from sparktui.i18n import _
from sparktui.tui.widgets.spark import millis, pct, rate, size, sparkline

WARN_PCT = 90.0


def _share(value: float | None, series: tuple[float | None, ...], width: int,
           warn: float = WARN_PCT) -> Text:
    style = "bold red" if value is not None and value > warn else ""
    text = Text(f"{pct(value):>4} ", style=style)
    text.append(sparkline(series, width, lo=0, hi=100), style="red" if style else "cyan")
    return text


def short_kernel(line: str) -> str:
    """``2025-06-15T14:58:02,120000+00:00 text`` -> ``14:58:02 text``."""
    stamp, _, rest = line.partition(" ")
    if len(stamp) >= 19 and stamp[10] == "T":
        return f"{stamp[11:19]} {rest}"
    return line


def _row(f: NodeFigures, frame: TelemetryFrame, spark: int) -> list[Text]:
    if not f.reachable:
        return [Text(f.node, style="bold"), Text(str(f.error or _("unreachable")), style="red")]
    h = frame.history

    def series(name: str) -> tuple[float | None, ...]:
        return h.get(f"{f.node}.{name}", ())

    split = Text(f"{size(f.mem_used)}/{size(f.mem_cache)}/{size(f.mem_available)}")
    swap = Text(size(f.swap_used) if f.swap_total else "-",
                style="yellow" if f.swap_used else "")
    gpu = Text(f"{pct(f.gpu_util):>4} ")
    gpu.append(sparkline(series("gpu_util"), spark, lo=0, hi=100), style="green")
    power = "-" if f.gpu_power is None else f"{f.gpu_power:.0f}W"
    temp = "-" if f.gpu_temp is None else f"{f.gpu_temp:.0f}°C"
    kernel = Text(short_kernel(f.kernel[-1]) if f.kernel else "", style="red")
    return [Text(f.node, style="bold"), _share(f.cpu_pct, series("cpu_pct"), spark),
            _share(f.mem_pct, series("mem_pct"), spark), split, swap, gpu, Text(power),
            Text(temp), Text(size(f.disk_free)), kernel]


SORTABLE = {"node": 0, "cpu": 1, "mem": 2, "gpu": 5}
"""The columns of this table the nodes pane can sort by (its arrow goes on the header)."""


def telemetry_table(cluster: Cluster, frame: TelemetryFrame, width: int, *,
                    nodes: list[str] | None = None,
                    marked: tuple[str, str] | None = None) -> Text:
    """``nodes``: which nodes, in which order (default: the cluster's, ranked);
    ``marked``: (column, arrow) of the nodes pane's sort."""
    spark = 16 if width >= 150 else 8 if width >= 100 else 4
    gap = " " * (2 if width >= 100 else 1)
    headers = [_("node"), _("cpu"), _("mem"), _("used/cache/avail"), _("swap"), _("gpu"),
               _("power"), _("temp"), _("HF free"), _("kernel")]
    if marked is not None and marked[0] in SORTABLE:
        headers[SORTABLE[marked[0]]] += f" {marked[1]}"
    names = nodes if nodes is not None else [n.name for n in cluster.ranked]
    rows = [_row(f, frame, spark) for name in names if (f := frame.node(name)) is not None]
    widths = [max([cell_len(h), *(r[i].cell_len for r in rows if len(r) > i)])
              for i, h in enumerate(headers[:-1])]
    rest = width - sum(widths) - len(gap) * len(widths) - 1
    if rest < 0 and all(len(r) == len(headers) for r in rows):  # 80x24: two blocks
        rows = [_row(f, frame, 2) for name in names if (f := frame.node(name)) is not None]
        widths = [max([cell_len(h), *(r[i].cell_len for r in rows)])
                  for i, h in enumerate(headers[:-1])]
        lines = [*_block(headers, rows, widths, gap, (0, 1, 2, 3, 4)),
                 *_block(headers, rows, widths, gap, (0, 5, 6, 7, 8))]
        if len(frame.engines) > 1:
            lines += engine_lines(frame, 2, gap, wide=False, width=width)
        return Text("\n", no_wrap=True, overflow="ellipsis").join(lines)
    if rest < 8:  # no room for the kernel line: it shows as an alert anyway
        headers, rows = headers[:-1], [r[:len(headers) - 1] for r in rows]
        widths, rest = widths[:-1], widths[-1]
    lines = []
    for cells in [[Text(h, style="bold") for h in headers], *rows]:
        line = Text(" ")
        for i, cell in enumerate(cells):
            cell = cell.copy()
            if i < len(widths) and i < len(cells) - 1:
                cell.pad_right(widths[i] - cell.cell_len)
                line.append_text(cell)
                line.append(gap)
            else:  # the last cell: the kernel line, or an unreachable node's reason
                cell.truncate(rest if i == len(widths) else max(1, width - line.cell_len),
                              overflow="ellipsis")
                line.append_text(cell)
        lines.append(line)
    if len(frame.engines) > 1:  # several recipes serve: one row of figures each
        lines += engine_lines(frame, spark, gap, wide=width >= 100, width=width)
    return Text("\n", no_wrap=True, overflow="ellipsis").join(lines)


def _block(headers: list[str], rows: list[list[Text]], widths: list[int], gap: str,
           columns: tuple[int, ...]) -> list[Text]:
    """The ``columns`` of the table, a block of their own: a narrow pane (80x24) shows
    the memory figures, then the GPU's, rather than cut the GPU's off."""
    lines = []
    for cells in [[Text(h, style="bold") for h in headers], *rows]:
        line = Text(" ")
        for i in columns:
            cell = cells[i].copy()
            cell.pad_right(widths[i] - cell.cell_len)
            line.append_text(cell)
            line.append(gap)
        line.rstrip()
        lines.append(line)
    return lines


def _engine_row(e: EngineFigures, frame: TelemetryFrame, spark: int) -> list[Text]:
    where = Text(f"{e.node}:{e.port}", style="dim")
    if e.error is not None:
        return [Text(e.recipe, style="bold"), where, Text(str(e.error), style="red")]
    h = frame.history
    gen = Text(f"{rate(e.gen_tps):>5} ")
    gen.append(sparkline(h.get(history_key(e.recipe, "gen_tps"), ()), spark, lo=0),
               style="cyan")
    kv = None if e.kv_cache is None else e.kv_cache * 100
    kv_series = tuple(None if v is None else v * 100
                      for v in h.get(history_key(e.recipe, "kv_cache"), ()))
    return [Text(e.recipe, style="bold"), where, gen,
            _share(kv, kv_series, spark, warn=KV_SHARE * 100),
            Text(f"{format_optional(e.running)}/{format_optional(e.waiting)}"),
            Text(millis(e.ttft_p95))]


def engine_lines(frame: TelemetryFrame, spark: int, gap: str, wide: bool = True,
                 width: int | None = None) -> list[Text]:
    """The engines' figures, one row per recipe, in columns of their own (narrow: without
    the head's address). Wider than ``width`` (the nodes pane at 80 columns): without
    sparklines, ``gen`` for ``out tok/s``, and the recipes' names take what the figures
    leave (cut with an ellipsis only when even that does not fit): no figure is cut."""
    headers = [_("recipe"), _("head"), _("out tok/s"), _("KV"), _("run/wait"),
               _("TTFT p95")]
    rows = [_engine_row(e, frame, spark) for e in frame.engines]
    if not wide:
        headers = headers[:1] + headers[2:]
        rows = [r[:1] + r[2:] for r in rows]
    lines = _columns(headers, rows, gap)
    if width is None or max(line.cell_len for line in lines) <= width:
        return lines
    headers[headers.index(_("out tok/s"))] = _("gen")
    rows = [_engine_row(e, frame, 0) for e in frame.engines]
    if not wide:
        rows = [r[:1] + r[2:] for r in rows]
    for r in rows:
        for cell in r:
            cell.rstrip()
    figures = _columns(headers[1:], [r[1:] for r in rows], gap)
    room = max(4, width - max(line.cell_len for line in figures) - len(gap))
    name = Text(headers[0])
    name.truncate(room, overflow="ellipsis")
    headers[0] = name.plain
    for r in rows:
        r[0].truncate(room, overflow="ellipsis")
    return _columns(headers, rows, gap)


def _columns(headers: list[str], rows: list[list[Text]], gap: str) -> list[Text]:
    """Bold headers over rows, each column as wide as its widest cell."""
    widths = [max([cell_len(h), *(r[i].cell_len for r in rows if len(r) > i)])
              for i, h in enumerate(headers)]
    lines = []
    for cells in [[Text(h, style="bold") for h in headers], *rows]:
        line = Text(" ")
        for i, cell in enumerate(cells):
            cell = cell.copy()
            if i < len(cells) - 1:
                cell.pad_right(widths[i] - cell.cell_len)
            line.append_text(cell)
            line.append(gap)
        line.rstrip()
        lines.append(line)
    return lines
