"""Read engine figures from Prometheus text with prometheus_client's parser.

Gauges are read as they are; token rates come from two snapshots of the counters,
and TTFT/TPOT percentiles from the difference of two snapshots of the histograms'
buckets (what Prometheus' ``histogram_quantile`` over ``rate()`` does).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

# Newer vLLM names first; SGLang's after. Values are summed over label sets.
RUNNING = ("vllm:num_requests_running", "sglang:num_running_reqs")
WAITING = ("vllm:num_requests_waiting", "sglang:num_queue_reqs")
KV_CACHE = ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage")
PROMPT_TOKENS = ("vllm:prompt_tokens_total", "sglang:prompt_tokens_total")
GENERATION_TOKENS = ("vllm:generation_tokens_total", "sglang:generation_tokens_total")
TTFT = ("vllm:time_to_first_token_seconds", "sglang:time_to_first_token_seconds")
TPOT = ("vllm:time_per_output_token_seconds", "vllm:inter_token_latency_seconds",
        "sglang:time_per_output_token_seconds", "sglang:inter_token_latency_seconds")


def labelled_samples(text: str) -> Iterator[tuple[str, dict[str, str], float]]:
    # Imported with the first scrape, not with the engine: start-up does not pay for it.
    from prometheus_client.parser import text_string_to_metric_families

    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            yield sample.name, sample.labels, float(sample.value)


def sample_values(text: str) -> dict[str, float]:
    """Sample name -> value summed over its label sets (histogram samples included)."""
    values: dict[str, float] = {}
    for name, _labels, value in labelled_samples(text):
        values[name] = values.get(name, 0.0) + value
    return values


def first(values: dict[str, float], names: tuple[str, ...]) -> float | None:
    return next((values[n] for n in names if n in values), None)


def engine_figures(text: str) -> tuple[float | None, float | None, float | None]:
    """(running, waiting, kv cache 0..1) from a /metrics body."""
    values = sample_values(text)
    return first(values, RUNNING), first(values, WAITING), first(values, KV_CACHE)


Buckets = dict[float, float]  # upper bound (le) -> cumulative count, summed over label sets


@dataclass(frozen=True)
class EngineSnapshot:
    """One scrape of the head's /metrics: gauges, counters and histogram buckets."""

    t: float  # monotonic seconds when it was read
    running: float | None = None
    waiting: float | None = None
    kv_cache: float | None = None
    prompt_tokens: float | None = None
    generation_tokens: float | None = None
    ttft: Buckets = field(default_factory=dict)
    tpot: Buckets = field(default_factory=dict)


def snapshot(text: str, t: float) -> EngineSnapshot:
    values: dict[str, float] = {}
    buckets: dict[str, Buckets] = {}
    for name, labels, value in labelled_samples(text):
        if name.endswith("_bucket") and "le" in labels:
            le = float(labels["le"])  # "+Inf" parses as inf
            family = buckets.setdefault(name[:-len("_bucket")], {})
            family[le] = family.get(le, 0.0) + value
        else:
            values[name] = values.get(name, 0.0) + value
    return EngineSnapshot(
        t, first(values, RUNNING), first(values, WAITING), first(values, KV_CACHE),
        first(values, PROMPT_TOKENS), first(values, GENERATION_TOKENS),
        next((buckets[n] for n in TTFT if n in buckets), {}),
        next((buckets[n] for n in TPOT if n in buckets), {}))


def rate(before: float | None, after: float | None, seconds: float) -> float | None:
    """Per-second increase of a counter; a reset (engine restart) counts from zero."""
    if before is None or after is None or seconds <= 0:
        return None
    delta = after - before if after >= before else after
    return delta / seconds


def bucket_delta(before: Buckets, after: Buckets) -> Buckets:
    if any(after.get(le, 0.0) < count for le, count in before.items()):
        return dict(after)  # a counter reset: the window starts at the restart
    return {le: count - before.get(le, 0.0) for le, count in after.items()}


def quantile(q: float, buckets: Buckets) -> float | None:
    """``histogram_quantile``: linear inside the bucket that holds the rank.

    None when the buckets saw nothing; the highest finite bound when the rank lies in
    the +Inf bucket.
    """
    bounds = sorted(buckets)
    if not bounds or not math.isinf(bounds[-1]):
        return None
    total = buckets[bounds[-1]]
    if total <= 0:
        return None
    rank = q * total
    lower, below = 0.0, 0.0
    for le in bounds:
        count = buckets[le]
        if count >= rank:
            if math.isinf(le):
                return lower
            if count == below:
                return le
            return lower + (le - lower) * (rank - below) / (count - below)
        lower, below = le, count
    return lower
