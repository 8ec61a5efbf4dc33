"""The fit's node script and its reading: run by a real ``sh`` against an HF cache laid
out as huggingface_hub leaves it, and fed hostile answers (a node's files are untrusted:
any text gives a verdict, never a traceback)."""

from __future__ import annotations

import json
import struct
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from plan_support import EXAMPLE_CONFIG, RECIPES

from sparktui.config.loader import load_config, load_recipe
from sparktui.plan.build import build_plan
from sparktui.plan.fit.calc import FITS, UNKNOWN, Layout
from sparktui.plan.fit.probe import Question, assess, model_ref, probe_script
from sparktui.plan.fit.settings import parse_settings
from sparktui.plan.model import HfRef

CONFIGS = Path(__file__).resolve().parent.parent / "data" / "model-configs"
COMMIT = "f" * 40
REPO = "Qwen/Qwen3-30B-A3B"
MEMINFO = "MemTotal:       24684084 kB"
REF = HfRef("model", REPO)


def _question(ref: HfRef | None = REF) -> Question:
    return Question("r", "c", ref, REPO, Layout("vllm", 1, 1, 1),
                    parse_settings("vllm", ["--max-model-len", "4096"], 1))


def _cache(tmp_path: Path) -> Path:
    snap = tmp_path / "hub" / "models--Qwen--Qwen3-30B-A3B" / "snapshots" / COMMIT
    snap.mkdir(parents=True)
    (snap.parent.parent / "refs").mkdir()
    (snap.parent.parent / "refs" / "main").write_text(COMMIT + "\n")
    (snap / "config.json").write_text((CONFIGS / "qwen3-30b-a3b.json").read_text())
    return snap


def _run(script: str) -> str:
    return subprocess.run(["sh", "-c", script], capture_output=True, text=True,
                          timeout=30).stdout


def _host_mem_total() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no MemTotal in /proc/meminfo")


def _header_file(path: Path, header: dict) -> None:
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + b"\0" * 64)


def test_the_script_reads_headers_of_every_shard_and_nothing_past_them(tmp_path):
    snap = _cache(tmp_path)
    _header_file(snap / "model-00001-of-00002.safetensors",
                 {"a": {"dtype": "BF16", "shape": [1000, 10], "data_offsets": [0, 20000]}})
    _header_file(snap / "model-00002-of-00002.safetensors",
                 {"__metadata__": {"format": "pt"},
                  "b": {"dtype": "F8_E4M3", "shape": [3, 5]}})  # no offsets: dtype x shape
    out = _run(probe_script(str(tmp_path), HfRef("model", REPO), "n1"))
    fit = assess("spark1", out, "n1", _question())
    assert fit.verdict == FITS, fit
    assert (fit.weights_from, fit.weights) == ("headers", 20000 + 15)
    assert fit.mem_total == _host_mem_total()  # the script read this machine's meminfo


def test_the_index_wins_and_a_missing_model_is_unknown(tmp_path):
    snap = _cache(tmp_path)
    (snap / "model.safetensors.index.json").write_text(
        '{\n  "metadata": {\n    "total_size": 61064245248\n  },\n  "weight_map": {}\n}\n')
    _header_file(snap / "model-00001-of-00001.safetensors",
                 {"a": {"dtype": "BF16", "shape": [1], "data_offsets": [0, 2]}})
    out = _run(probe_script(str(tmp_path), HfRef("model", REPO), "n2"))
    fit = assess("spark1", out, "n2", _question())
    assert (fit.weights_from, fit.weights) == ("index", 61064245248)
    out = _run(probe_script(str(tmp_path), HfRef("model", "org/absent"), "n3"))
    missing = assess("spark1", out, "n3", _question(HfRef("model", "org/absent")))
    assert missing.verdict == UNKNOWN and "org/absent" in str(missing.reason)


def test_a_file_cannot_fake_a_section(tmp_path):
    snap = _cache(tmp_path)
    cfg = json.loads((CONFIGS / "qwen3-30b-a3b.json").read_text())
    # a config.json whose text holds a marker line: without the nonce it is just text
    (snap / "config.json").write_text(json.dumps(cfg, indent=1).replace(
        '"architectures"', '"x": "\\n@@fit-guess index",\n "architectures"', 1))
    out = _run(probe_script(str(tmp_path), HfRef("model", REPO), "secret"))
    fit = assess("spark1", out, "secret", _question())
    assert fit.weights_from == "config"


@pytest.mark.parametrize("model", ["../../etc/passwd", "org/$(touch x)", "org/a b",
                                   "/models/local", "org/a;rm", "org/..", "{{nothing}}"])
def test_what_is_no_repo_id_is_never_probed(model):
    plan = build_plan(load_config(EXAMPLE_CONFIG),
                      load_recipe(RECIPES / "gpt-oss-120b-sglang" / "recipe.toml"), "2nodes")
    assert model_ref(plan) == HfRef("model", "openai/gpt-oss-120b")
    assert model_ref(replace(plan, model=model)) is None


HOSTILE = [
    "", "garbage", f"@@fit-n meminfo\n{MEMINFO}\n",
    f"@@fit-n meminfo\n{MEMINFO}\n@@fit-n snapshot\n@@fit-n config\n[1, 2]",
    f"@@fit-n meminfo\n{MEMINFO}\n@@fit-n snapshot\n@@fit-n config\n"
    '{"num_hidden_layers": "32", "num_attention_heads": 8}',
    f"@@fit-n meminfo\n{MEMINFO}\n@@fit-n snapshot\n@@fit-n config\n"
    '{"num_hidden_layers": 1e400, "num_attention_heads": 8}',
    f"@@fit-n meminfo\n{MEMINFO}\n@@fit-n snapshot\n@@fit-n config\n"
    '{"num_hidden_layers": 99999999999999, "num_attention_heads": 8, "hidden_size": 8,'
    ' "vocab_size": 8, "max_position_embeddings": 8}',
    f"@@fit-n meminfo\n{MEMINFO}\n@@fit-n snapshot\n@@fit-n config\n"
    '{"num_hidden_layers": 2, "num_attention_heads": 0, "hidden_size": 8}',
    f"@@fit-n meminfo\n{MEMINFO}\n@@fit-n snapshot\n@@fit-n config\n"
    '{"num_hidden_layers": 2, "num_attention_heads": 2, "hidden_size": 8, '
    '"vocab_size": "x", "max_position_embeddings": 8, "layer_types": 7, '
    '"sliding_window": "w", "mlp_only_layers": "all"}\n'
    "@@fit-n header a.safetensors\n{not json",
]


@pytest.mark.parametrize("output", HOSTILE)
def test_any_answer_gives_a_verdict(output):
    fit = assess("spark1", output, "n", _question())
    assert fit.verdict in ("fits", "tight", "does_not_fit", "unknown", "error")
    assert fit.node == "spark1"
