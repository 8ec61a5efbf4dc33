"""A fit report in words, in the active language: one line per node with its numbers."""

from __future__ import annotations

from sparktui.fmt import format_percent, format_size
from sparktui.i18n import N_, _
from sparktui.plan.fit.calc import ERROR, FITS, NO_FIT, TIGHT, UNKNOWN, FitReport, NodeFit

VERDICT_WORDS = {FITS: N_("fits"), TIGHT: N_("tight"), NO_FIT: N_("does not fit"),
                 UNKNOWN: N_("unknown"), ERROR: N_("error")}
WEIGHTS_FROM = {"index": N_("safetensors index"), "headers": N_("safetensors headers"),
                "config": N_("estimated from config.json")}


def verdict_word(verdict: str) -> str:
    return _(VERDICT_WORDS.get(verdict, verdict))


def node_line(fit: NodeFit) -> str:
    if fit.verdict in (UNKNOWN, ERROR):
        reason = fit.reason.removeprefix(f"{fit.node}: ")  # the line names the node already
        return f"{fit.node}: {verdict_word(fit.verdict)}: {reason}"
    values = dict(
        node=fit.node, verdict=verdict_word(fit.verdict), weights=format_size(fit.weights),
        source=_(WEIGHTS_FROM.get(fit.weights_from, fit.weights_from)),
        kv=format_size(fit.kv), sequences=fit.sequences, tokens=fit.kv_tokens,
        per_token=format_size(fit.kv_per_token), overhead=format_size(fit.overhead),
        needed=format_size(fit.needed), budget=format_size(fit.budget),
        share=format_percent(fit.share), total=format_size(fit.mem_total),
        headroom=format_size(fit.headroom), room=fit.room_sequences)
    if fit.overhead_inside:
        return _("{node}: {verdict}: weights {weights} ({source}) + KV cache {kv} "
                 "({sequences} x {tokens} tokens, {per_token} per token) + engine {overhead} "
                 "= {needed} of {budget} ({share} of {total}); headroom {headroom}, room for "
                 "{room} full-length sequences").format(**values)
    return _("{node}: {verdict}: weights {weights} ({source}) + KV cache {kv} ({sequences} x "
             "{tokens} tokens, {per_token} per token) = {needed} of {budget} ({share} of "
             "{total}), engine {overhead} in the rest; headroom {headroom}, room for {room} "
             "full-length sequences").format(**values)


def report_lines(report: FitReport) -> list[str]:
    head = _("{recipe} ({model}) on {cluster}: {verdict}").format(
        recipe=report.recipe, model=report.model, cluster=report.cluster,
        verdict=verdict_word(report.verdict))
    return [head, *("  " + node_line(n) for n in report.nodes)]


def refusal(blocking: list[NodeFit]) -> str:
    """Why serve refuses: the nodes that do not fit (or could not be checked), with
    their numbers, and the way past it."""
    return "\n".join(node_line(n) for n in blocking) + "\n" + _(
        "nothing was started; `sparktui serve --force` serves it anyway")
