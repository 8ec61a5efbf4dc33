"""The fit before download, against a real Hub server: a model in no node's HF cache is
fitted from the Hub's config.json and safetensors index (or its files' sizes), read by
sparktui's real ``huggingface_hub`` client from olah on loopback (tests/hub_support.py),
on the real sshd test nodes, which report this machine's MemTotal.

Every test names its Hub (``HF_ENDPOINT``: olah, or a free loopback port); the rest of
the suite runs offline (tests/home_support.py ``no_hub``), so nothing reaches past
loopback.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from hub_support import CONFIGS, Lfs, free_port, model_files, olah, use_hub
from site_support import Recorder

from sparktui.cli import main

__all__ = ["olah"]  # the fixture, used by name

LLAMA_TOTAL = 16_060_522_496  # metadata.total_size of meta-llama/Llama-3.1-8B-Instruct's index
DEEPSEEK_TOTAL = 688_586_727_753


def recipe(model: str, args: list[str], image: str = "vllm:hub") -> str:
    """A 2-node TP 2 vLLM recipe; ``image`` is only checked by serve (fit reads none)."""
    return "\n".join([
        'engine = "vllm"', f'docker_image = "{image}"', f"model = {json.dumps(model)}",
        "port = 30017", "required_nodes = 2", "tensor_parallel_size = 2",
        'entrypoint = ["vllm", "serve"]', f"args = {json.dumps(args)}"]) + "\n"


def _site(site, tmp_path):
    cache = tmp_path / "hf"
    return site(2, extra_toml=f'[mount_aliases]\nhf_cache = "{cache}"\n'), cache


def _fit_json(s, name, capsys) -> tuple[int, dict]:
    code = main(s.cli("fit", name, "--json"))
    return code, json.loads(capsys.readouterr().out)


def node_snapshot(cache: Path, repo: str, files: dict[str, bytes | str | Lfs]) -> None:
    """The same files in a node's HF cache, as huggingface_hub lays them out (weights
    files left out: an index is read, never a weight)."""
    commit = "0123456789abcdef0123456789abcdef01234567"
    root = cache / "hub" / f"models--{repo.replace('/', '--')}"
    (root / "refs").mkdir(parents=True)
    (root / "refs" / "main").write_text(commit)
    snap = root / "snapshots" / commit
    snap.mkdir(parents=True)
    for name, content in files.items():
        if isinstance(content, str):
            (snap / name).write_text(content)


def test_the_same_model_gives_the_same_figures_from_the_hub_and_from_a_node_cache(
        site, tmp_path, olah, monkeypatch, capsys):
    s, cache = _site(site, tmp_path)
    files = model_files("llama-3.1-8b", total_size=LLAMA_TOTAL)
    commit = olah.add("hubfit/llama-same", files)
    s.recipe("llama", recipe("hubfit/llama-same", ["--max-model-len", "4096"]))
    use_hub(monkeypatch, olah.url)

    code, from_hub = _fit_json(s, "llama", capsys)
    assert code == 0 and from_hub["verdict"] == "fits"
    for row in from_hub["nodes"]:
        assert row["weights_from"] == "index" and row["weights"] == LLAMA_TOTAL // 2
        assert row["hub"]["code"] == "hub_said.from_hub"
        assert row["hub"]["params"]["commit"] == commit
        assert row["hub"]["params"]["endpoint"] == olah.url

    node_snapshot(cache, "hubfit/llama-same", files)
    code, from_cache = _fit_json(s, "llama", capsys)
    assert code == 0
    assert [r["hub"] for r in from_cache["nodes"]] == ["", ""]  # the Hub was not asked
    for hub_row, cache_row in zip(from_hub["nodes"], from_cache["nodes"], strict=True):
        assert {**hub_row, "hub": ""} == cache_row

    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{free_port()}")  # cached: not asked
    assert _fit_json(s, "llama", capsys)[1] == from_cache


def test_without_an_index_the_weights_are_the_files_sizes_and_the_text_says_hub(
        site, tmp_path, olah, monkeypatch, capsys):
    s, _cache = _site(site, tmp_path)
    olah.add("hubfit/qwen-sizes", model_files("qwen3-30b-a3b", shards=3, shard_size=7_000_000_000))
    s.recipe("qwen", recipe("hubfit/qwen-sizes", ["--max-model-len", "4096"]))
    use_hub(monkeypatch, olah.url)
    code, report = _fit_json(s, "qwen", capsys)
    assert code in (0, 4)  # the verdict is this machine's memory's; the figures are not
    for row in report["nodes"]:
        assert row["weights_from"] == "sizes"
        assert row["weights"] == 3 * 7_000_000_000 // 2
    main(s.cli("fit", "qwen"))
    out = capsys.readouterr().out
    assert "safetensors file sizes" in out and "figures from the Hub's files" in out
    assert "in no node's HF cache" in out


def test_the_recipes_revision_is_the_one_asked(site, tmp_path, olah, monkeypatch, capsys):
    s, _cache = _site(site, tmp_path)
    first = olah.add("hubfit/llama-rev", model_files("llama-3.1-8b", total_size=LLAMA_TOTAL),
                     tags=("v1",))
    later = model_files("llama-3.1-8b", total_size=2 * LLAMA_TOTAL)
    folder = olah.mirror / "models" / "hubfit" / "llama-rev"
    (folder / "model.safetensors.index.json").write_text(
        str(later["model.safetensors.index.json"]))
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam",
                    "bigger"], cwd=folder, check=True, timeout=60)
    use_hub(monkeypatch, olah.url)
    s.recipe("main", recipe("hubfit/llama-rev", ["--max-model-len", "4096"]))
    s.recipe("v1", recipe("hubfit/llama-rev", ["--max-model-len", "4096", "--revision", "v1"]))
    main_rows = _fit_json(s, "main", capsys)[1]["nodes"]
    v1_rows = _fit_json(s, "v1", capsys)[1]["nodes"]
    assert {r["weights"] for r in main_rows} == {LLAMA_TOTAL}
    assert {r["weights"] for r in v1_rows} == {LLAMA_TOTAL // 2}
    assert {r["hub"]["params"]["revision"] for r in v1_rows} == {"v1"}
    assert {r["hub"]["params"]["commit"] for r in v1_rows} == {first}


def test_an_unknown_repo_stays_unknown_and_says_the_hub_does_not_have_it(
        site, tmp_path, olah, monkeypatch, capsys):
    s, _cache = _site(site, tmp_path)
    s.recipe("nope", recipe("hubfit/no-such-model", ["--max-model-len", "4096"]))
    use_hub(monkeypatch, olah.url)
    code, report = _fit_json(s, "nope", capsys)
    assert code == 5 and report["verdict"] == "unknown"
    for row in report["nodes"]:
        assert row["reason"]["code"] == "probe_said.not_cached"
        assert row["hub"]["code"] == "hub_said.not_asked"
        assert row["hub"]["params"]["why"]["code"] == "hub_why.not_found_no_token"
    assert main(s.cli("fit", "nope")) == 5
    out = capsys.readouterr().out
    assert "could not ask the Hub: hubfit/no-such-model is not on " + olah.url in out


def test_a_hub_that_is_down_or_offline_leaves_the_fit_unknown_with_the_reason(
        site, tmp_path, monkeypatch, capsys):
    s, _cache = _site(site, tmp_path)
    s.recipe("down", recipe("hubfit/anything", ["--max-model-len", "4096"]))
    down = f"http://127.0.0.1:{free_port()}"
    use_hub(monkeypatch, down)
    assert main(s.cli("fit", "down")) == 5
    captured = capsys.readouterr()
    assert f"could not ask the Hub: {down} cannot be reached" in captured.out
    assert "Traceback" not in captured.out + captured.err

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    code, report = _fit_json(s, "down", capsys)
    assert code == 5
    assert {r["hub"]["params"]["why"]["code"] for r in report["nodes"]} == {"hub_why.offline"}

    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setenv("HF_ENDPOINT", "file:///etc")
    assert main(s.cli("fit", "down")) == 5
    assert "HF_ENDPOINT file:///etc is no http:// or https:// address" in capsys.readouterr().out


def test_a_hostile_hub_file_is_refused_with_a_clear_message(
        site, tmp_path, olah, monkeypatch, capsys):
    s, _cache = _site(site, tmp_path)
    huge = json.dumps({"pad": " " * (2 << 20), **json.loads(
        (CONFIGS / "llama-3.1-8b.json").read_text())})
    olah.add("hubfit/huge-config", {"config.json": huge})
    olah.add("hubfit/wrong-index", {**model_files("llama-3.1-8b"),
                                    "model.safetensors.index.json": '{"metadata": '
                                    '{"total_size": "16 GB"}}'})
    olah.add("hubfit/nested", {"config.json": "[" * 100_000})
    use_hub(monkeypatch, olah.url)
    for name, repo, words in (
            ("huge", "hubfit/huge-config", "config.json from the Hub is larger than 1.0\u00a0MiB"),
            ("wrong", "hubfit/wrong-index", "index.json from the Hub has no metadata.total_size"),
            ("nested", "hubfit/nested", "config.json from the Hub is not JSON of the expected")):
        s.recipe(name, recipe(repo, ["--max-model-len", "4096"]))
        assert main(s.cli("fit", name)) == 5, name
        captured = capsys.readouterr()
        assert "the Hub's answer was not used: " in captured.out, captured.out
        assert words in captured.out, captured.out
        assert "Traceback" not in captured.out + captured.err


def test_serves_preflight_fits_from_the_hub_and_refuses_what_does_not_fit(
        site, tmp_path, olah, monkeypatch):
    import asyncio

    mem_total = next(int(line.split()[1]) * 1024 for line in
                     Path("/proc/meminfo").read_text().splitlines()
                     if line.startswith("MemTotal:"))
    assert mem_total * 0.9 < DEEPSEEK_TOTAL / 2, "this machine holds DeepSeek-V3 at TP 2"
    s, _cache = _site(site, tmp_path)
    olah.add("hubfit/deepseek", model_files("deepseek-v3", total_size=DEEPSEEK_TOTAL))
    # the test nodes' image: serve's preflight checks it before the fit (never started)
    s.recipe("ds", recipe("hubfit/deepseek", ["--max-model-len", "8192"], image="vllm:test"))
    use_hub(monkeypatch, olah.url)
    rec = Recorder()

    async def go():
        engine = s.engine()
        try:
            return await engine.serve(s.plan("ds"), rec)
        finally:
            await engine.close()

    result = asyncio.run(go())
    assert not result.ok and result.failed_step == "fit"
    failed = [e for e in rec.events if e.state == "failed" and e.step == "fit"]
    assert {e.node for e in failed} == {"node1", "node2"}
    assert all("figures from the Hub's files" in str(e.detail) for e in failed)
    assert not any(step == "launch" for _node, step in rec.steps("started"))
