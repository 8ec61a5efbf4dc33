"""The benchmark tool for the bench tests: NVIDIA's aiperf, installed apart from
sparktui (it pins Textual 5; .ci/run puts it in .venv-aiperf and sets $SPARKTUI_AIPERF),
and a tokenizer that counts tokens the way the test engine does (whitespace words),
written by the test: no Hugging Face download, and counts a test can predict."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from sparktui.config.bench_result import BenchRun
from sparktui.plan.bench.aiperf import BenchSettings, level_result
from sparktui.plan.bench.record import build_run

DATA = Path(__file__).resolve().parent / "plan" / "bench_data"


def aiperf() -> str:
    """The aiperf program; skipped without it, a failure under CI (like the hosts)."""
    tool = os.environ.get("SPARKTUI_AIPERF") or shutil.which("aiperf")
    if tool and shutil.which(tool):
        return tool
    why = "aiperf not installed (pipx install aiperf==0.13.0, or set $SPARKTUI_AIPERF)"
    if os.environ.get("CI") == "true":
        pytest.fail(why)
    pytest.skip(why)


def word_tokenizer(folder: Path) -> Path:
    """A Hugging Face tokenizer folder: one token per whitespace-separated word, the
    test engine's count of a prompt, and of its output ("Hello world world ...")."""
    folder.mkdir(parents=True, exist_ok=True)
    vocab = {"[UNK]": 0, "Hello": 1, "world": 2, **{f"w{i}": 3 + i for i in range(500)}}
    (folder / "tokenizer.json").write_text(json.dumps({
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": 0, "content": "[UNK]", "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": True}],
        "normalizer": None, "pre_tokenizer": {"type": "WhitespaceSplit"},
        "post_processor": None, "decoder": {"type": "WordPiece", "prefix": "##",
                                            "cleanup": False},
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"}}))
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "PreTrainedTokenizerFast", "unk_token": "[UNK]",
        "model_max_length": 100000}))
    return folder


def bench_setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """aiperf found, runs kept under tmp_path (XDG_DATA_HOME); the word tokenizer. The
    machine is set offline for Hugging Face, as an operator's without a way out is: the
    local tokenizer folder must work all the same (engine/bench/run.py, tool_env)."""
    monkeypatch.setenv("SPARKTUI_AIPERF", aiperf())
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return word_tokenizer(tmp_path / "tokenizer")


def kept_runs(tmp_path: Path) -> list[dict]:
    folder = tmp_path / "data" / "sparktui" / "bench"
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]


# -- runs built from a real aiperf 0.13 export, for the pure and the TUI tests --------

def export(name: str = "aiperf-0.13-export.json") -> dict:
    return json.loads((DATA / name).read_text())


@dataclass
class Target:
    recipe: str = "toy"
    cluster: str = "test"
    nodes: list[str] = field(default_factory=lambda: ["node1", "node2"])
    head: str = "node1"
    url: str = "http://10.0.0.11:8000"
    model: str = "org/toy"
    engine: str = "vllm"
    engine_version: str | None = "0.33.0"
    via: str = "head"
    image: str = "vllm/vllm-openai:v0.33.0"
    image_ids: dict = field(default_factory=lambda: {"node1": "sha256:" + "a" * 64,
                                                     "node2": "sha256:" + "a" * 64})
    image_digest: str | None = None


@dataclass
class Node:
    name: str
    role: str
    launch: list[str]
    env: dict[str, str]


@dataclass
class Plan:
    nodes: list[Node]


def plan(seqs: str) -> Plan:
    argv = ["docker", "run", "-d", "vllm/vllm-openai:v0.33.0", "vllm", "serve", "org/toy",
            "--max-num-seqs", seqs]
    env = {"NCCL_DEBUG": "WARN", "HF_TOKEN": "hf_secret_value"}
    return Plan([Node("node1", "head", argv, env), Node("node2", "worker", argv, env)])


def a_run(seqs: str = "64", scale: float = 1.0, run: str = "20261201-120000-toy") -> BenchRun:
    one = level_result(export(), 1)
    four = level_result(export(), 4)
    if scale != 1.0:
        four = four.model_copy(update={"output_tokens_per_second":
                                       four.output_tokens_per_second * scale})
    settings = BenchSettings(concurrency=(1, 4), requests=8, input_tokens=32,
                             output_tokens=20).as_dict()
    return build_run(run=run, when=1764590400.0, target=Target(), plan=plan(seqs),
                     tool="aiperf", tool_version="0.13.0", argv=["aiperf", "profile"],
                     settings=settings, levels=[one, four], interrupted=False)
