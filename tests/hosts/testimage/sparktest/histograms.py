"""The test engine's latency histograms, observed as vLLM's are (its buckets), fed at a
set rate: every observation is exactly the set value (or one of a mix's, in proportion
to the shares), so sum/count equals it and quantiles land in the bucket holding it."""

from __future__ import annotations

import math

TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5,
                5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
TPOT_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0,
                7.5, 10.0, 20.0, 40.0, 80.0]


class Histogram:
    def __init__(self, buckets: list[float]) -> None:
        self.buckets = buckets
        self.counts = [0] * len(buckets)
        self.count = 0
        self.sum = 0.0
        self.pending = 0.0  # fractional observations not yet recorded
        self.owed: dict[float, float] = {}  # per value of a mix: observations not yet made

    def observe(self, value: float, n: int = 1) -> None:
        for i, le in enumerate(self.buckets):
            if value <= le:
                self.counts[i] += n
        self.count += n
        self.sum += value * n

    def add_rate(self, value, expected: float) -> None:
        """``expected`` more observations, of ``value`` (seconds) or spread over a mix
        ``[[seconds, share], ...]`` in proportion to the shares (largest remainder)."""
        mix = mixture(value)
        self.pending += expected
        whole = math.floor(self.pending)
        if whole <= 0 or not mix:
            return
        self.pending -= whole
        total = sum(share for _, share in mix)
        for v, share in mix:
            self.owed[v] = self.owed.get(v, 0.0) + whole * share / total
        for v in list(self.owed):
            n = math.floor(self.owed[v] + 1e-9)
            if n > 0:
                self.observe(v, n)
                self.owed[v] -= n


def mixture(value) -> list[tuple[float, float]]:
    """A number, or ``[[seconds, share], ...]``: the distribution the fake produces."""
    if isinstance(value, (int, float)):
        return [(float(value), 1.0)] if value > 0 else []
    try:
        return [(float(v), float(w)) for v, w in value if float(v) > 0 and float(w) > 0]
    except (TypeError, ValueError):
        return []
