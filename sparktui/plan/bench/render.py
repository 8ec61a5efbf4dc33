"""The text of a run, of the list of runs and of a comparison (golden files:
tests/plan/data/bench/). Latencies in ms, end-to-end in s, units in the headers."""

from __future__ import annotations

from rich.cells import cell_len

from sparktui.config.bench_result import BenchRun, LevelResult, Stat
from sparktui.fmt import format_number
from sparktui.i18n import _
from sparktui.plan.bench.compare import FIGURES, changes, figure, level_pairs, ratio
from sparktui.visible import shorten, visible


def _table(rows: list[list[str]], indent: str = "  ", left: int = 1) -> list[str]:
    """Columns aligned by display width: the first ``left`` (words) to the left, the
    others (figures) to the right."""
    widths = [max(cell_len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [c + " " * (w - cell_len(c)) if i < left else " " * (w - cell_len(c)) + c
                 for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        lines.append((indent + "  ".join(cells)).rstrip())
    return lines


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else format_number(value, digits, fixed=True)


def _triple(stat: Stat, scale: float, digits: int) -> str:
    return "/".join(_num(None if v is None else v * scale, digits)
                    for v in (stat.p50, stat.p90, stat.p99))


def level_rows(levels: list[LevelResult]) -> list[list[str]]:
    rows = [[_("conc"), _("req/s"), _("tok/s"), _("TTFT ms p50/p90/p99"),
             _("ITL ms p50/p90/p99"), _("E2E s p50/p90/p99"), _("ok"), _("errors")]]
    for lv in levels:
        rows.append([str(lv.concurrency) + ("*" if lv.partial else ""),
                     _num(lv.request_throughput, 2), _num(lv.output_tokens_per_second),
                     _triple(lv.ttft, 1000, 0), _triple(lv.itl, 1000, 1),
                     _triple(lv.e2e, 1, 2), str(lv.requests), str(lv.errors)])
    return rows


def _setting(value: object) -> str:
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return "-" if value is None else str(value)


def _say(text: str) -> str:
    return shorten(visible(text), 200)


def run_text(run: BenchRun) -> str:
    lines = [_say(_("run {id}: {recipe} on {cluster} ({nodes}), {when}").format(
                 id=run.id, recipe=run.recipe, cluster=run.cluster,
                 nodes=", ".join(run.nodes) or "-", when=run.created_at)),
             "  " + _say((_("engine {engine} {version} at {url} (head {head}), model {model}")
                          if run.via == "head" else
                          _("engine {engine} {version} through the router at {url} (head "
                            "{head}), model {model}"))
                         .format(engine=run.engine or "-", version=run.engine_version or "-",
                                 url=run.url, head=run.head, model=run.model or "-")),
             "  " + _say(_("image {image}: {ids}").format(
                 image=run.image or "-",
                 ids=", ".join(f"{n} {(i or '-')[:19]}" for n, i in run.image_ids.items())
                 or "-")),
             "  " + _say(_("tool {tool} {version}: {settings}").format(
                 tool=run.tool.name, version=run.tool.version,
                 settings=", ".join(f"{k} {_setting(v)}" for k, v in run.tool.settings.items())))]
    if run.levels:
        lines += _table(level_rows(run.levels))
    else:
        lines.append("  " + _("no level measured"))
    if run.interrupted:
        lines.append("  " + _("interrupted (Ctrl+C): * marks a level cut short"))
    return "\n".join(lines) + "\n"


def list_text(runs: list[BenchRun]) -> str:
    if not runs:
        return _("no benchmark runs kept yet") + "\n"
    rows = [[_("run"), _("recipe"), _("cluster"), _("engine"), _("levels"),
             _("best tok/s"), _("TTFT p50 ms at 1")]]
    for run in runs:
        best = max((lv.output_tokens_per_second or 0.0 for lv in run.levels), default=None)
        single = next((lv for lv in run.levels if lv.concurrency == 1), None)
        ttft = single.ttft.p50 if single else None
        rows.append([_say(run.id) + ("*" if run.interrupted else ""), _say(run.recipe),
                     _say(run.cluster),
                     _say(f"{run.engine} {run.engine_version or ''}".strip()) or "-",
                     ",".join(str(lv.concurrency) for lv in run.levels) or "-",
                     _num(best), _num(None if ttft is None else ttft * 1000, 0)])
    return "\n".join(_table(rows, indent="", left=4)) + "\n"


_FIGURE_LABELS = {"output_tokens_per_second": "tok/s", "request_throughput": "req/s",
                  "ttft_p50": "TTFT p50 ms", "ttft_p99": "TTFT p99 ms",
                  "itl_p50": "ITL p50 ms", "e2e_p50": "E2E p50 s", "errors": "errors"}
_SCALE = {"ttft_p50": 1000, "ttft_p99": 1000, "itl_p50": 1000}


def _change(value: float | None) -> str:
    return "" if value is None else f"{value * 100:+.0f}%"


def compare_text(a: BenchRun, b: BenchRun) -> str:
    lines = [_say(_("compare {a} -> {b}").format(a=a.id, b=b.id))]
    found = changes(a, b)
    lines.append("  " + (_("what differs:") if found else _("what was measured is the same")))
    if found:
        lines += _table([[_say(c.what), _say(c.before), "->", _say(c.after)]
                         for c in found], indent="    ", left=4)
    lines.append("  " + _("figures:"))
    rows = [[_("conc"), _("figure"), "a", "b", _("change")]]
    for c, la, lb in level_pairs(a, b):
        for i, name in enumerate(FIGURES):
            scale = _SCALE.get(name, 1)
            x = figure(la, name) if la else None
            y = figure(lb, name) if lb else None
            digits = 0 if name in ("errors", "ttft_p50", "ttft_p99") else 1
            rows.append([str(c) if i == 0 else "", _FIGURE_LABELS[name],
                         _num(None if x is None else x * scale, digits),
                         _num(None if y is None else y * scale, digits),
                         _change(ratio(x, y)) or "-"])
    lines += _table(rows, indent="    ", left=2)
    return "\n".join(lines) + "\n"
