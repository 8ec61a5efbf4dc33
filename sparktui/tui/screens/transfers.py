"""A pull's bytes per node in the progress view: a bar, done of total, rate, time left.

Rendered from the run's :class:`~sparktui.tui.viewmodel.transfers.TransferBoard` at each
report; node names and sources are the config's names, shown through the one filter."""

from __future__ import annotations

from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from sparktui.engine.api import PullKind
from sparktui.fmt import format_duration, format_size, format_size_of
from sparktui.i18n import N_, _
from sparktui.scrub import scrub
from sparktui.tui.viewmodel.transfers import TransferBoard, TransferSeen

Cells = tuple[Text, Text, ProgressBar, Text, Text, Text]

KINDS = {PullKind.IMAGE: N_("image"), PullKind.MODEL: N_("model")}
BAR_WIDTH = 10


def transfers_table(board: TransferBoard, now: float) -> Table:
    """Node, amount and pace keep their width; the source gives way on a narrow screen."""
    rows = [_cells(row, now) for row in board.rows()]
    if len(rows) > 1:
        done, total = board.totals()
        rows.append((Text(_("total"), style="dim"), Text(""),
                     ProgressBar(total or 1, done, width=BAR_WIDTH),
                     Text(_amount(done, total), style="dim"), Text(""), Text("")))
    def widest(i: int) -> int:
        texts = [cell for cells in rows if isinstance(cell := cells[i], Text)]
        return max(text.cell_len for text in texts)

    table = Table.grid(padding=(0, 1))
    table.add_column(style="bold", no_wrap=True, min_width=widest(0))
    table.add_column(no_wrap=True, style="dim", min_width=widest(1))
    table.add_column(no_wrap=True, width=BAR_WIDTH)
    table.add_column(no_wrap=True, justify="right", min_width=widest(3))
    table.add_column(no_wrap=True, min_width=widest(4))
    table.add_column(no_wrap=True, overflow="ellipsis", style="dim")
    for cells in rows:
        table.add_row(*cells)
    return table



def _cells(row: TransferSeen, now: float) -> Cells:
    latest = row.latest
    return (Text(scrub(latest.node)), Text(_(KINDS[latest.kind])),
            ProgressBar(latest.total or 1, latest.done, width=BAR_WIDTH),
            Text(_amount(latest.done, latest.total)), Text(_pace(row, now)),
            Text("← " + scrub(latest.source)))


def _amount(done: int, total: int) -> str:
    return format_size_of(done, total)


def _pace(row: TransferSeen, now: float) -> str:
    if row.finished:
        return "✓"
    rate = row.rate(now)
    if rate is None:
        return ""
    left = row.left_seconds(now)
    pace = _("{size}/s").format(size=format_size(rate))
    return pace if left is None else _("{pace}, {left} left").format(
        pace=pace, left=format_duration(left))
