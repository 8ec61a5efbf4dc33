"""Several recipes on one node: the shares of node memory their engines claim must sum
to at most ``SHARE_LIMIT``. Pure: serve gives it what the nodes said runs there.

Why shares and not bytes: an engine takes its share of the node's memory whatever its
model weighs (vLLM 0.33 allocates ``--gpu-memory-utilization`` x total for weights,
activations and KV cache, and fills what the model leaves with KV blocks; SGLang
0.5.23's ``--mem-fraction-static`` the same for weights and KV). So two engines whose
shares sum past the node over-commit it even when both models are small, and the share
is known from the flags alone, with no weights in the HF cache (docs/fit.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sparktui.i18n import N_
from sparktui.said import Code, Layout, Param, Said, Size, Text, joined, lines, said

SHARE_MARGIN = 0.1
"""Kept out of every engine's share on a node shared by several: the OS, docker, the
page cache of the weights being read, and each SGLang's activations and CUDA graphs
(outside its static fraction)."""
SHARE_LIMIT = round(1.0 - SHARE_MARGIN, 6)
HOLDING_STATES = ("running", "restarting", "created", "paused")
"""A container in one of these states holds (or is about to take) its share."""


@dataclass(frozen=True)
class Holder:
    """An engine member of another recipe on the node, as the node reports it."""

    recipe: str
    share: float | None  # None: neither its label nor its argv says
    port: int | None
    container: str


@dataclass(frozen=True)
class NodeShares:
    node: str
    recipe: str
    asks: float
    holders: list[Holder] = field(default_factory=list)
    mem_total: int = 0  # 0: not known (the fit did not read it)

    @property
    def unknown(self) -> list[Holder]:
        return [h for h in self.holders if h.share is None]

    @property
    def total(self) -> float:
        return round(self.asks + sum(h.share or 0.0 for h in self.holders), 6)

    @property
    def ok(self) -> bool:
        return not self.holders or (not self.unknown and self.total <= SHARE_LIMIT)


def node_shares(node: str, recipe: str, asks: float, holders: list[Holder],
                mem_total: int = 0) -> NodeShares:
    return NodeShares(node, recipe, asks, sorted(holders, key=lambda h: h.recipe), mem_total)


class ShareSaid(Code):
    UNKNOWN_SHARE = N_("an unknown share")
    HOLDS_AT = N_("{recipe} holds {share} (port {port})")
    HOLDS = N_("{recipe} holds {share}")
    OF = N_("{held} of {total}")
    ASKS = N_("{recipe} asks {share:g}")
    UNKNOWN = N_("{node}: {held}, {asks}: the share of {names} is unknown (no "
                 "sparktui.mem_share label, no share flag in its argv)")
    SUM = "{node}: {held}, {asks}: {total:g} {sign} {limit:g}"  # no words of its own
    TOO_MUCH = N_("the engines' shares of a node must sum to at most {limit:g}; nothing was "
                  "started; stop one (`sparktui stop --recipe NAME`), lower a share, or "
                  "`sparktui serve --force`")


def _held(h: Holder) -> Said:
    share: Text = said(ShareSaid.UNKNOWN_SHARE) if h.share is None else f"{h.share:g}"
    if h.port:
        return said(ShareSaid.HOLDS_AT, recipe=h.recipe, share=share, port=h.port)
    return said(ShareSaid.HOLDS, recipe=h.recipe, share=share)


def share_line(row: NodeShares) -> Said:
    """``node1: glm holds 0.45 (port 30000) of 119.2 GiB, qwen asks 0.5: 0.95 > 0.9``."""
    holders = [_held(h) for h in row.holders]
    held: Param = said(ShareSaid.OF, held=holders, total=Size(row.mem_total)) \
        if row.mem_total else holders
    asks = said(ShareSaid.ASKS, recipe=row.recipe, share=row.asks)
    if row.unknown:
        return said(ShareSaid.UNKNOWN, node=row.node, held=held, asks=asks,
                    names=[h.container for h in row.unknown])
    sign = "<=" if row.total <= SHARE_LIMIT else ">"
    return said(ShareSaid.SUM, node=row.node, held=held, asks=asks, total=row.total, sign=sign,
                limit=SHARE_LIMIT)


def share_refusal(blocking: list[NodeShares]) -> Said:
    return joined(Layout.LINES, lines([share_line(r) for r in blocking]),
                  said(ShareSaid.TOO_MUCH, limit=SHARE_LIMIT))
