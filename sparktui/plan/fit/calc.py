"""Does a model fit on a node: weights + KV cache + the engine's own memory against the
share of the node's memory the recipe gives the engine. Pure arithmetic.

What counts, per node (one GPU per DGX Spark; tensor x pipeline ranks spread over the
plan's nodes):

- weights: the snapshot's tensor bytes, split over ``tp x pp`` ranks;
- KV cache: ``--max-num-seqs`` sequences (one when the recipe leaves it to the engine:
  the engine refuses to start without room for one sequence of ``--max-model-len``) of
  ``--max-model-len`` tokens. Per layer and token: 2 x KV heads x head size x the KV
  dtype's bytes, the KV heads split over tensor-parallel ranks (at least one each);
  MLA keeps one latent of ``kv_lora_rank + qk_rope_head_dim`` values, the same on every
  rank; sliding-window layers keep at most ``sliding_window`` tokens. Layers split over
  pipeline ranks.
- the engine's own memory: ``ENGINE_OVERHEAD`` per node (see there).

vLLM's ``--gpu-memory-utilization`` covers all three. SGLang's ``--mem-fraction-static``
covers weights and KV; its activations and CUDA graphs live in the rest of the memory.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from sparktui.plan.fit.settings import Settings
from sparktui.plan.fit.shape import DTYPE_BYTES, Shape
from sparktui.said import Text, json_value

GIB = 1 << 30
ENGINE_OVERHEAD = 3 * GIB
"""Per node: the CUDA context and NCCL buffers (about 1 GiB), the activation peak of the
engine's profiling pass at the default 8192 batched tokens (1-2 GiB) and CUDA graphs
(about 0.5 GiB). vLLM logs its own figures at start-up ("model weights take ... GiB;
non_torch_memory takes ...; PyTorch activation peak memory takes ...", then "Graph
capturing finished ... took ... GiB"); compare them when a fit is close."""

TIGHT_HEADROOM = 0.10
"""Below this share of the engine's memory left over, a fit is "tight"."""

FITS, TIGHT, NO_FIT, UNKNOWN, ERROR = "fits", "tight", "does_not_fit", "unknown", "error"
VERDICT_ORDER = (FITS, TIGHT, UNKNOWN, NO_FIT, ERROR)
"""Better to worse: a cluster's verdict is its worst node's."""


@dataclass(frozen=True)
class Layout:
    """How a plan spreads the model: ranks of each kind and the nodes they run on."""

    engine: str
    tensor_parallel: int
    pipeline_parallel: int
    nodes: int

    @property
    def ranks_per_node(self) -> int:
        return max(1, math.ceil(self.tensor_parallel * self.pipeline_parallel / self.nodes))


@dataclass(frozen=True)
class NodeFit:
    node: str
    verdict: str
    reason: Text = ""  # unknown / error: why (the node is its ``node``)
    mem_total: int = 0
    share: float = 0.0
    share_from: str = ""
    budget: int = 0
    weights: int = 0
    weights_from: str = ""  # "index", "headers" or "config"
    kv: int = 0
    kv_per_token: int = 0
    kv_tokens: int = 0
    sequences: int = 0
    overhead: int = 0
    overhead_inside: bool = True  # vLLM: inside the share; SGLang: in the rest
    needed: int = 0
    headroom: int = 0
    room_sequences: int = 0  # full-length sequences the budget has room for
    hub: Text = ""  # the model in no node's cache: where the Hub's figures came from, or
    # why it gave none (sparktui.plan.fit.hub)

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "reason": json_value(self.reason), "hub": json_value(self.hub)}


@dataclass(frozen=True)
class FitReport:
    recipe: str
    cluster: str
    model: str
    nodes: list[NodeFit] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        worst = max((VERDICT_ORDER.index(n.verdict) for n in self.nodes), default=0)
        return VERDICT_ORDER[worst]

    def as_dict(self) -> dict[str, Any]:
        return {"recipe": self.recipe, "cluster": self.cluster, "model": self.model,
                "verdict": self.verdict, "tight_headroom": TIGHT_HEADROOM,
                "engine_overhead": ENGINE_OVERHEAD, "nodes": [n.as_dict() for n in self.nodes]}


def overhead_inside(engine: str) -> bool:
    """vLLM's share of the memory covers the engine's own; SGLang's does not."""
    return engine != "sglang"


def engine_claim(engine: str, share: float, mem_total: int) -> int:
    """What the engine takes of a node's memory as it starts, and must find available:
    its share of the total (vLLM refuses to start with less free: "Free memory on device
    ... is less than desired GPU memory utilization"), and SGLang its own memory in the
    rest. A fit's ``budget`` plus, for SGLang, its ``overhead``."""
    budget = int(share * mem_total)
    return budget if overhead_inside(engine) else budget + ENGINE_OVERHEAD


def kv_value_bytes(settings: Settings, shape: Shape) -> int:
    """One KV value: ``--kv-cache-dtype`` (fp8 variants: 1 byte), else the model's."""
    if settings.kv_cache_dtype != "auto":
        return DTYPE_BYTES.get(settings.kv_cache_dtype, shape.dtype_bytes)
    if settings.dtype != "auto":
        return min(DTYPE_BYTES.get(settings.dtype, shape.dtype_bytes), 4)
    return shape.dtype_bytes


def layer_token_bytes(shape: Shape, value_bytes: int, tensor_parallel: int) -> int:
    """KV bytes one layer keeps per token on one rank."""
    if shape.is_mla:
        return shape.mla_latent * value_bytes
    heads = max(1, shape.kv_heads // tensor_parallel)
    return 2 * heads * shape.head_dim * value_bytes


def kv_bytes(shape: Shape, value_bytes: int, layout: Layout, tokens: int,
             sequences: int) -> tuple[int, int]:
    """(KV bytes of ``sequences`` of ``tokens`` on one node, bytes per token of context
    while it is within every sliding window)."""
    per_layer = layer_token_bytes(shape, value_bytes, layout.tensor_parallel)
    pp = layout.pipeline_parallel
    full = math.ceil(shape.full_layers / pp)
    sliding = math.ceil(shape.sliding_layers / pp)
    kept = full * tokens + sliding * min(shape.sliding_window, tokens)
    ranks = layout.ranks_per_node
    return sequences * per_layer * kept * ranks, per_layer * (full + sliding) * ranks


def node_fit(node: str, mem_total: int, weights_total: int, weights_from: str,
             shape: Shape, settings: Settings, layout: Layout) -> NodeFit:
    """The verdict of one node, with every number that made it."""
    ranks = layout.tensor_parallel * layout.pipeline_parallel
    weights = math.ceil(weights_total / ranks) * layout.ranks_per_node
    # auto (0): the engine shortens the context to what is left, so no KV is counted
    tokens = shape.max_position if settings.max_model_len is None else settings.max_model_len
    sequences = settings.max_num_seqs or 1
    value = kv_value_bytes(settings, shape)
    kv, per_token = kv_bytes(shape, value, layout, tokens, sequences)
    one_seq, _ = kv_bytes(shape, value, layout, tokens, 1)
    budget = int(settings.share * mem_total)
    overhead = ENGINE_OVERHEAD
    inside = overhead_inside(layout.engine)
    needed = weights + kv + (overhead if inside else 0)
    headroom = budget - needed
    free_for_kv = budget - weights - (overhead if inside else 0)
    room = max(0, free_for_kv // one_seq) if one_seq else 0
    rest_short = not inside and mem_total - budget < overhead
    if headroom < 0 or rest_short:
        verdict = NO_FIT
    elif headroom < TIGHT_HEADROOM * budget:
        verdict = TIGHT
    else:
        verdict = FITS
    return NodeFit(node=node, verdict=verdict, mem_total=mem_total, share=settings.share,
                   share_from=settings.share_from, budget=budget, weights=weights,
                   weights_from=weights_from, kv=kv, kv_per_token=per_token,
                   kv_tokens=tokens, sequences=sequences, overhead=overhead,
                   overhead_inside=inside, needed=needed,
                   headroom=headroom, room_sequences=int(room))
