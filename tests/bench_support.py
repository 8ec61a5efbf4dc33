"""The benchmark tool for the bench tests: NVIDIA's aiperf, installed apart from
sparktui (it pins Textual 5; .ci/run puts it in .venv-aiperf and sets $SPARKTUI_AIPERF),
and a tokenizer that counts tokens the way the test engine does (whitespace words),
written by the test: no Hugging Face download, and counts a test can predict."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest


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
    """aiperf found, runs kept under tmp_path (XDG_DATA_HOME); the word tokenizer."""
    monkeypatch.setenv("SPARKTUI_AIPERF", aiperf())
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return word_tokenizer(tmp_path / "tokenizer")


def kept_runs(tmp_path: Path) -> list[dict]:
    folder = tmp_path / "data" / "sparktui" / "bench"
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]
