"""A benchmark run as it is kept on disk (docs/bench.md): one JSON file per run.

The file is read back later, perhaps edited or copied from someone else: it is
validated like a config (strict, unknown keys refused), so ``--list`` and
``--compare`` show a problem instead of a traceback.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from sparktui.config.base import Strict

Format = Literal["1"]
FORMAT: Format = "1"
"""Bumped when a field changes meaning; a reader refuses formats it does not know."""

# Bounds on every number, far past what a benchmark measures and far below what the
# renderers break on: a shared file of 1e308 tokens/s crashed babel's formatting (the
# TTFT is shown in ms: 1e308 * 1000 is inf), a 4000-digit concurrency crashed plotext.
MAX_SECONDS = 1e6  # eleven days for one request
MAX_RATE = 1e9  # requests or tokens per second
MAX_CONCURRENCY = 1 << 20
MAX_COUNT = 10**12  # requests in one level


Latency = Annotated[float, Field(ge=0, le=MAX_SECONDS)]
Rate = Annotated[float, Field(ge=0, le=MAX_RATE)]
Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]


class Stat(Strict):
    """One latency in seconds over the level's requests (None: the tool did not say)."""

    mean: Latency | None = None
    p50: Latency | None = None
    p90: Latency | None = None
    p99: Latency | None = None


class LevelResult(Strict):
    """What one concurrency level measured."""

    concurrency: Annotated[int, Field(ge=1, le=MAX_CONCURRENCY)]
    requests: Count
    """Completed without an error."""
    errors: Count
    duration_seconds: Latency | None = None
    request_throughput: Rate | None = None
    """Requests per second."""
    output_tokens_per_second: Rate | None = None
    ttft: Stat = Field(default_factory=Stat)
    itl: Stat = Field(default_factory=Stat)
    """Inter-token latency."""
    e2e: Stat = Field(default_factory=Stat)
    """Request latency, first byte sent to last token."""
    partial: bool = False
    """Stopped by Ctrl+C: what was measured until then."""


class Member(Strict):
    """One node of the plan: its launch argv and env as the plan built them (secrets
    masked)."""

    node: str
    role: Literal["head", "worker"]
    launch: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)


class Tool(Strict):
    name: str
    version: str
    argv: list[str] = Field(default_factory=list)
    """One level's command, the level's flags as they were for the first level."""
    settings: dict[str, Any] = Field(default_factory=dict)


class BenchRun(Strict):
    format: Format
    """``FORMAT``: a reader refuses formats it does not know."""
    id: Annotated[str, Field(min_length=1, max_length=128)]
    created_at: str
    """ISO 8601, UTC."""
    recipe: str
    cluster: str
    nodes: list[str] = Field(default_factory=list)
    head: str
    url: str
    """Where the load went: the head's API, or the router's."""
    via: Literal["head", "router"] = "head"
    model: str
    engine: str
    """The recipe's engine as it was then (a record: not checked against today's list)."""
    engine_version: str | None = None
    image: str
    image_ids: dict[str, str | None] = Field(default_factory=dict)
    """node -> image ID (None: unknown)."""
    image_digest: Annotated[str, Field(pattern=r"^sha256:[0-9a-f]{64}$")] | None = None
    """The repo digest of ``image`` on the head (None: unknown, or the image was never
    pulled from a registry): a tag that moved between two runs shows here."""
    plan: list[Member] = Field(default_factory=list)
    tool: Tool
    levels: list[LevelResult] = Field(default_factory=list)
    interrupted: bool = False
