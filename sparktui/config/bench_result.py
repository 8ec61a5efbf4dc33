"""A benchmark run as it is kept on disk (docs/bench.md): one JSON file per run.

The file is read back later, perhaps edited or copied from someone else: it is
validated like a config (strict, unknown keys refused), so ``--list`` and
``--compare`` show a problem instead of a traceback.
"""

from __future__ import annotations

from sparktui.config.schema import (
    Model,
    anything,
    array,
    boolean,
    field,
    integer,
    literal,
    nested,
    nullable,
    number,
    table,
    text,
)

FORMAT = 1
"""Bumped when a field changes meaning; a reader refuses formats it does not know."""

# Bounds on every number, far past what a benchmark measures and far below what the
# renderers break on: a shared file of 1e308 tokens/s crashed babel's formatting (the
# TTFT is shown in ms: 1e308 * 1000 is inf), a 4000-digit concurrency crashed plotext.
MAX_SECONDS = 1e6  # eleven days for one request
MAX_RATE = 1e9  # requests or tokens per second
MAX_CONCURRENCY = 1 << 20
MAX_COUNT = 10**12  # requests in one level


class Stat(Model):
    """One latency in seconds over the level's requests (None: the tool did not say)."""

    mean = field(nullable(number(ge=0, le=MAX_SECONDS)), None)
    p50 = field(nullable(number(ge=0, le=MAX_SECONDS)), None)
    p90 = field(nullable(number(ge=0, le=MAX_SECONDS)), None)
    p99 = field(nullable(number(ge=0, le=MAX_SECONDS)), None)


class LevelResult(Model):
    """What one concurrency level measured."""

    concurrency = field(integer(ge=1, le=MAX_CONCURRENCY))
    requests = field(integer(ge=0, le=MAX_COUNT))  # completed without an error
    errors = field(integer(ge=0, le=MAX_COUNT))
    duration_seconds = field(nullable(number(ge=0, le=MAX_SECONDS)), None)
    request_throughput = field(nullable(number(ge=0, le=MAX_RATE)), None)  # requests/s
    output_tokens_per_second = field(nullable(number(ge=0, le=MAX_RATE)), None)
    ttft = field(nested(Stat), factory=Stat)
    itl = field(nested(Stat), factory=Stat)  # inter-token latency
    e2e = field(nested(Stat), factory=Stat)  # request latency, first byte sent to last token
    partial = field(boolean(), False)  # stopped by Ctrl+C: what was measured until then


class Member(Model):
    """One node of the plan: its launch argv and env as the plan built them (secrets
    masked)."""

    node = field(text())
    role = field(text())
    launch = field(array(text()), factory=list)
    env = field(table(text()), factory=dict)


class Tool(Model):
    name = field(text())
    version = field(text())
    argv = field(array(text()), factory=list)  # one level's command, the level's flags
    # as they were for the first level
    settings = field(table(anything()), factory=dict)


class BenchRun(Model):
    format = field(literal(str(FORMAT)))
    id = field(text(min_length=1, max_length=128))
    created_at = field(text())  # ISO 8601, UTC
    recipe = field(text())
    cluster = field(text())
    nodes = field(array(text()), factory=list)
    head = field(text())
    url = field(text())  # where the load went: the head's API, or the router's
    via = field(literal("head", "router"), "head")
    model = field(text())
    engine = field(text())
    engine_version = field(nullable(text()), None)
    image = field(text())
    image_ids = field(table(nullable(text())), factory=dict)  # node -> ID (None: unknown)
    plan = field(array(nested(Member)), factory=list)
    tool = field(nested(Tool))
    levels = field(array(nested(LevelResult)), factory=list)
    interrupted = field(boolean(), False)
