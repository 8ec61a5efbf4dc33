"""Read engine figures from Prometheus text with prometheus_client's parser."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

# Newer vLLM names first; SGLang's after. Values are summed over label sets.
RUNNING = ("vllm:num_requests_running", "sglang:num_running_reqs")
WAITING = ("vllm:num_requests_waiting", "sglang:num_queue_reqs")
KV_CACHE = ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage")


def sample_values(text: str) -> dict[str, float]:
    """Sample name -> value summed over its label sets (histogram samples included)."""
    values: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            values[sample.name] = values.get(sample.name, 0.0) + float(sample.value)
    return values


def first(values: dict[str, float], names: tuple[str, ...]) -> float | None:
    return next((values[n] for n in names if n in values), None)


def engine_figures(text: str) -> tuple[float | None, float | None, float | None]:
    """(running, waiting, kv cache 0..1) from a /metrics body."""
    values = sample_values(text)
    return first(values, RUNNING), first(values, WAITING), first(values, KV_CACHE)
