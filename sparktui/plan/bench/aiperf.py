"""NVIDIA's aiperf (0.13) as sparktui drives it: one ``aiperf profile`` per concurrency
level, and its ``profile_export_aiperf.json`` read into a ``LevelResult``.

The export gives every metric as ``{"unit": ..., "avg": ..., "p50": ...}``; units are
read, never assumed (a TTFT in ms stored as seconds would be a 1000x lie).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from sparktui.config.bench_result import LevelResult, Stat

TOOL = "aiperf"
EXPORT = "profile_export_aiperf.json"
RECORDS = "profile_export.jsonl"  # one line per finished request, written as they finish


@dataclass(frozen=True)
class BenchSettings:
    concurrency: tuple[int, ...] = (1, 4, 16)
    input_tokens: int = 128
    output_tokens: int = 128
    requests: int | None = None  # per level; None: 4 x the concurrency, at least 8
    tokenizer: str | None = None  # None: the recipe's model (aiperf fetches it from HF)

    def requests_at(self, concurrency: int) -> int:
        return self.requests if self.requests is not None else max(8, 4 * concurrency)

    def as_dict(self) -> dict[str, Any]:
        return {"concurrency": list(self.concurrency), "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens, "requests": self.requests,
                "tokenizer": self.tokenizer}


def parse_concurrency(text: str) -> tuple[int, ...]:
    """``1,4,16`` -> (1, 4, 16); raises ValueError with the word that is not a level."""
    levels = []
    for word in text.split(","):
        word = word.strip()
        if not word.isdecimal() or not 1 <= int(word) <= 4096:
            raise ValueError(word)
        levels.append(int(word))
    if not levels:
        raise ValueError(text)
    return tuple(dict.fromkeys(levels))


def profile_argv(tool: str, settings: BenchSettings, *, url: str, model: str,
                 concurrency: int, artifact_dir: str) -> list[str]:
    """One level's command: streaming completions, synthetic prompts of the set length,
    a fixed number of requests; aiperf's own UI off (sparktui shows the progress)."""
    return [tool, "profile", "--model", model, "--url", url,
            "--endpoint-type", "completions", "--streaming",
            "--tokenizer", settings.tokenizer or model,
            "--concurrency", str(concurrency),
            "--request-count", str(settings.requests_at(concurrency)),
            "--prompt-input-tokens-mean", str(settings.input_tokens),
            "--prompt-input-tokens-stddev", "0",
            "--prompt-output-tokens-mean", str(settings.output_tokens),
            "--prompt-output-tokens-stddev", "0",
            "--extra-inputs", "ignore_eos:true",
            "--ui-type", "none", "--no-server-metrics", "--no-gpu-telemetry",
            "--artifact-dir", artifact_dir]


_TO_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0, "seconds": 1.0}


def _metric(export: dict[str, Any], name: str) -> dict[str, Any]:
    value = export.get(name)
    return value if isinstance(value, dict) else {}


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _seconds(export: dict[str, Any], name: str) -> Stat:
    metric = _metric(export, name)
    if not metric:
        return Stat()
    unit = str(metric.get("unit", ""))
    if unit not in _TO_SECONDS:
        raise ValueError(f"{name}: unit {unit!r} is not a time")
    scale = _TO_SECONDS[unit]

    def get(key: str) -> float | None:
        value = _finite(metric.get(key))
        return None if value is None else value * scale
    return Stat(mean=get("avg"), p50=get("p50"), p90=get("p90"), p99=get("p99"))


def _rate(export: dict[str, Any], name: str, unit: str) -> float | None:
    metric = _metric(export, name)
    if not metric:
        return None
    if metric.get("unit") != unit:
        raise ValueError(f"{name}: unit {metric.get('unit')!r}, expected {unit!r}")
    return _finite(metric.get("avg"))


def _count(export: dict[str, Any], name: str) -> int:
    value = _finite(_metric(export, name).get("avg"))
    return round(value) if value is not None else 0


def _errors(export: dict[str, Any]) -> int:
    counted = _count(export, "error_request_count")
    if counted:
        return counted
    summary = export.get("error_summary")
    if isinstance(summary, list):
        return sum(int(e.get("count", 0)) for e in summary if isinstance(e, dict)
                   and isinstance(e.get("count", 0), int))
    return 0


def level_result(export: dict[str, Any], concurrency: int) -> LevelResult:
    """One level's export as our result; ValueError when a figure's unit is not the one
    its name implies (a changed export format, never read as a number)."""
    if not isinstance(export, dict):
        raise ValueError("the export is not a JSON object")
    duration = _metric(export, "benchmark_duration")
    seconds = _finite(duration.get("avg"))
    if seconds is not None:
        seconds *= _TO_SECONDS.get(str(duration.get("unit")), math.nan)
        seconds = _finite(seconds)
    return LevelResult(
        concurrency=concurrency,
        requests=_count(export, "request_count"),
        errors=_errors(export),
        duration_seconds=seconds,
        request_throughput=_rate(export, "request_throughput", "requests/sec"),
        output_tokens_per_second=_rate(export, "output_token_throughput", "tokens/sec"),
        ttft=_seconds(export, "time_to_first_token"),
        itl=_seconds(export, "inter_token_latency"),
        e2e=_seconds(export, "request_latency"),
        partial=bool(export.get("was_cancelled")) or export.get("is_complete") is False,
    )


def tool_version(output: str) -> str:
    """``aiperf --version``'s answer, first line, stripped (``0.13.0``)."""
    line = output.strip().splitlines()[0] if output.strip() else ""
    return line.split()[-1] if line else "unknown"
