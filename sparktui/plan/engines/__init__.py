"""Inference engines behind a small registry: one module per engine."""

from __future__ import annotations

from sparktui.plan.engines.base import Engine, EngineContext
from sparktui.plan.engines.sglang import SGLANG
from sparktui.plan.engines.vllm import VLLM

ENGINES: dict[str, Engine] = {engine.name: engine for engine in (VLLM, SGLANG)}


def engine_for(name: str) -> Engine:
    return ENGINES[name]


__all__ = ["ENGINES", "Engine", "EngineContext", "engine_for"]
