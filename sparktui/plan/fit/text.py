"""A fit report as sentences: one line per node with its numbers, as data (``Said``), in
the language of whoever shows it."""

from __future__ import annotations

from sparktui.i18n import N_
from sparktui.plan.fit.calc import ERROR, FITS, NO_FIT, TIGHT, UNKNOWN, FitReport, NodeFit
from sparktui.said import Code, Layout, Percent, Said, Size, Text, joined, lines, said


class Verdict(Code):
    FITS = N_("fits")
    TIGHT = N_("tight")
    NO_FIT = N_("does not fit")
    UNKNOWN = N_("unknown")
    ERROR = N_("error")


class WeightsFrom(Code):
    INDEX = N_("safetensors index")
    HEADERS = N_("safetensors headers")
    SIZES = N_("safetensors file sizes")
    CONFIG = N_("estimated from config.json")


class FitSaid(Code):
    WHY = "{node}: {verdict}: {reason}"  # no words of its own
    INSIDE = N_("{node}: {verdict}: weights {weights} ({source}) + KV cache {kv} "
                "({sequences} x {tokens} tokens, {per_token} per token) + engine {overhead} "
                "= {needed} of {budget} ({share} of {total}); headroom {headroom}, room for "
                "{room} full-length sequences")
    BESIDE = N_("{node}: {verdict}: weights {weights} ({source}) + KV cache {kv} ({sequences} x "
                "{tokens} tokens, {per_token} per token) = {needed} of {budget} ({share} of "
                "{total}), engine {overhead} in the rest; headroom {headroom}, room for {room} "
                "full-length sequences")
    REPORT = N_("{recipe} ({model}) on {cluster}: {verdict}")
    FORCE = N_("nothing was started; `sparktui serve --force` serves it anyway")


VERDICTS = {FITS: Verdict.FITS, TIGHT: Verdict.TIGHT, NO_FIT: Verdict.NO_FIT,
            UNKNOWN: Verdict.UNKNOWN, ERROR: Verdict.ERROR}
SOURCES = {"index": WeightsFrom.INDEX, "headers": WeightsFrom.HEADERS,
           "sizes": WeightsFrom.SIZES, "config": WeightsFrom.CONFIG}


def verdict_said(verdict: str) -> Text:
    return said(VERDICTS[verdict]) if verdict in VERDICTS else verdict


def node_line(fit: NodeFit) -> Said:
    """The node's verdict and its numbers, then what the Hub said when it was asked."""
    line = _figures_line(fit)
    return joined(Layout.SEMICOLON, line, fit.hub) if fit.hub else line


def _figures_line(fit: NodeFit) -> Said:
    verdict = verdict_said(fit.verdict)
    if fit.verdict in (UNKNOWN, ERROR):
        return said(FitSaid.WHY, node=fit.node, verdict=verdict, reason=fit.reason)
    source = SOURCES.get(fit.weights_from)
    return said(
        FitSaid.INSIDE if fit.overhead_inside else FitSaid.BESIDE,
        node=fit.node, verdict=verdict, weights=Size(fit.weights),
        source=said(source) if source else fit.weights_from,
        kv=Size(fit.kv), sequences=fit.sequences, tokens=fit.kv_tokens,
        per_token=Size(fit.kv_per_token), overhead=Size(fit.overhead),
        needed=Size(fit.needed), budget=Size(fit.budget), share=Percent(fit.share),
        total=Size(fit.mem_total), headroom=Size(fit.headroom), room=fit.room_sequences)


def report_lines(report: FitReport) -> list[str]:
    head = said(FitSaid.REPORT, recipe=report.recipe, model=report.model,
                cluster=report.cluster, verdict=verdict_said(report.verdict))
    return [str(head), *("  " + str(node_line(n)) for n in report.nodes)]


def refusal(blocking: list[NodeFit]) -> Said:
    """Why serve refuses: the nodes that do not fit (or could not be checked), with
    their numbers, and the way past it."""
    return joined(Layout.LINES, lines([node_line(n) for n in blocking]), said(FitSaid.FORCE))
