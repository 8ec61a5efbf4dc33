"""The memory settings a recipe's ``args`` pass to its engine, with the engines'
defaults: vLLM 0.33 (``vllm/config/cache.py`` ``gpu_memory_utilization = 0.9``;
``--max-model-len`` defaults to the model's ``max_position_embeddings``) and SGLang
0.5.23 (``--mem-fraction-static``, ``--context-length``, ``--max-running-requests``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

VLLM_UTILIZATION = 0.9
SGLANG_FRACTION_BY_TP = ((16, 0.79), (8, 0.81), (4, 0.85), (2, 0.87), (1, 0.88))
"""SGLang sizes its default static fraction from the GPU; sparktui assumes its
long-standing table by tensor-parallel size. Set ``--mem-fraction-static`` in the
recipe for a check that does not assume."""

_FLAGS = {
    "vllm": {"share": "--gpu-memory-utilization", "max_len": "--max-model-len",
             "seqs": "--max-num-seqs", "kv_dtype": "--kv-cache-dtype", "dtype": "--dtype"},
    "sglang": {"share": "--mem-fraction-static", "max_len": "--context-length",
               "seqs": "--max-running-requests", "kv_dtype": "--kv-cache-dtype",
               "dtype": "--dtype"},
}
_SIZE = re.compile(r"(\d+(?:\.\d+)?)([kKmMgG]?)")


class SettingError(ValueError):
    """A flag's value that is no number: ``flag`` and the text."""

    def __init__(self, flag: str, value: str):
        super().__init__(f"{flag} {value}")
        self.flag, self.value = flag, value


@dataclass(frozen=True)
class Settings:
    share: float
    share_from: str  # the flag, or "default"
    max_model_len: int | None  # None: the model's max_position_embeddings; 0: auto
    max_num_seqs: int | None  # None: the recipe leaves it to the engine
    kv_cache_dtype: str  # "auto": the model's dtype
    dtype: str


def flag_values(args: list[str]) -> dict[str, str]:
    """``--flag value`` and ``--flag=value``; ``_`` spelled as ``-`` (both parse)."""
    found: dict[str, str] = {}
    for i, arg in enumerate(args):
        if not arg.startswith("--"):
            continue
        name, sep, value = arg.partition("=")
        name = "--" + name[2:].replace("_", "-")
        if sep:
            found[name] = value
        elif i + 1 < len(args) and not args[i + 1].startswith("--"):
            found[name] = args[i + 1]
    return found


AUTO_LENGTH = ("auto", "-1")
"""vLLM's ``--max-model-len auto`` (or -1): the engine fits the length to the memory."""


def _tokens(flag: str, text: str) -> int:
    """vLLM takes ``32k``/``1m`` (powers of 1000, ``K``/``M``: of 1024)."""
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        raise SettingError(flag, text)
    number, unit = float(match.group(1)), match.group(2)
    scale = {"": 1, "k": 1000, "m": 1000**2, "g": 1000**3,
             "K": 1024, "M": 1024**2, "G": 1024**3}[unit]
    return int(number * scale)


def _fraction(flag: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise SettingError(flag, text) from None
    if not 0 < value <= 1:
        raise SettingError(flag, text)
    return value


def parse_settings(engine: str, args: list[str], tensor_parallel: int) -> Settings:
    flags = _FLAGS[engine]
    given = flag_values(args)
    share_flag = flags["share"]
    if share_flag in given:
        share, share_from = _fraction(share_flag, given[share_flag]), share_flag
    elif engine == "vllm":
        share, share_from = VLLM_UTILIZATION, "default"
    else:
        share = next(f for tp, f in SGLANG_FRACTION_BY_TP if tensor_parallel >= tp)
        share_from = "default"
    max_len = given.get(flags["max_len"])
    seqs = given.get(flags["seqs"])
    return Settings(
        share=share, share_from=share_from,
        max_model_len=(None if max_len is None else 0 if max_len.strip() in AUTO_LENGTH
                       else _tokens(flags["max_len"], max_len)),
        max_num_seqs=_tokens(flags["seqs"], seqs) if seqs is not None else None,
        kv_cache_dtype=given.get(flags["kv_dtype"], "auto"),
        dtype=given.get(flags["dtype"], "auto"))


SHARE_FLAGS = ("--gpu-memory-utilization", "--mem-fraction-static")
"""vLLM's and SGLang's share flags: either found in a running engine's argv is its share."""


def launch_share(engine: str, args: list[str], tensor_parallel: int) -> float | None:
    """The share of its node's memory an engine given the recipe's ``args`` claims (the
    engine's default when the flag is absent); None when the flag is no valid value."""
    if engine not in _FLAGS:
        return None
    try:
        return parse_settings(engine, args, tensor_parallel).share
    except SettingError:
        return None


def argv_share(argv: list[str]) -> float | None:
    """The share flag of a running engine's argv as ``docker inspect`` reports it."""
    given = flag_values(argv)
    for flag in SHARE_FLAGS:
        if flag in given:
            try:
                return _fraction(flag, given[flag])
            except SettingError:
                return None
    return None
