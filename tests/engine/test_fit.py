"""Memory fit on real sshd test hosts: the model's files in an HF cache on the nodes,
each node's real /proc/meminfo, ``sparktui fit`` and serve's preflight.

No memory is faked: the nodes report this machine's MemTotal, and the model that must
not fit is DeepSeek-V3, whose index says 688 GB of weights (half a node's share even at
TP 2 would need 344 GB); the test checks that premise against the real MemTotal.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

from lookalike import Why
from site_support import Recorder

from sparktui.cli import main

# A look-alike, not the real vLLM (tests/lookalike.py): a 688 GB model's fit to a node's (GPU)
# memory, served with --force; 2-node TP group.
LOOKALIKE = (Why.GPU, Why.MULTI_NODE)

CONFIGS = Path(__file__).resolve().parent.parent / "data" / "model-configs"
COMMIT = "0123456789abcdef0123456789abcdef01234567"
DEEPSEEK_TOTAL = 688_586_727_753  # metadata.total_size of deepseek-ai/DeepSeek-V3's index


def mem_total() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no MemTotal in /proc/meminfo")


def snapshot(cache: Path, repo: str, config: str) -> Path:
    """An HF cache entry as huggingface_hub leaves it: refs/main and the snapshot."""
    root = cache / "hub" / f"models--{repo.replace('/', '--')}"
    (root / "refs").mkdir(parents=True)
    (root / "refs" / "main").write_text(COMMIT)
    snap = root / "snapshots" / COMMIT
    snap.mkdir(parents=True)
    (snap / "config.json").write_text((CONFIGS / f"{config}.json").read_text())
    return snap


def safetensors(path: Path, tensors: dict[str, tuple[str, list[int], int]]) -> int:
    """A real safetensors file (8-byte little-endian length, JSON header, data); its
    data is a sparse hole of 8 GiB past the tensors, so a reader of the whole file
    would not finish. Returns the tensors' bytes."""
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, (dtype, shape, width) in tensors.items():
        size = width
        for dim in shape:
            size *= dim
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    raw = json.dumps(header).encode()
    with path.open("wb") as f:
        f.write(struct.pack("<Q", len(raw)) + raw)
        f.truncate(8 + len(raw) + offset + (8 << 30))
    return offset


def recipe(model: str, args: list[str], nodes: int = 2) -> str:
    return "\n".join([
        'engine = "vllm"', 'docker_image = "vllm:test"', f"model = {json.dumps(model)}",
        "port = 30017", f"required_nodes = {nodes}", f"tensor_parallel_size = {nodes}",
        'entrypoint = ["vllm", "serve"]', f"args = {json.dumps(args)}"]) + "\n"


def _site(site, tmp_path, n=2):
    cache = tmp_path / "hf"
    return site(n, extra_toml=f'[mount_aliases]\nhf_cache = "{cache}"\n'), cache


def _docker_runs(hosts, node):
    return [a for a in hosts.recorded_docker(node) if a[:2] == ["docker", "run"]]


def test_fit_reads_safetensors_headers_and_the_nodes_memory(site, tmp_path, capsys):
    s, cache = _site(site, tmp_path)
    snap = snapshot(cache, "meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b")
    weights = safetensors(snap / "model.safetensors", {
        "model.embed_tokens.weight": ("BF16", [128256, 16], 2),
        "model.norm.weight": ("F32", [4096], 4)})
    s.recipe("llama", recipe("meta-llama/Llama-3.1-8B-Instruct", ["--max-model-len", "4096"]))
    assert main(s.cli("fit", "llama", "--json")) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == "fits"
    total = mem_total()
    for row in report["nodes"]:
        assert row["weights_from"] == "headers"
        assert row["weights"] == -(-weights // 2)  # TP 2 over two nodes
        assert row["mem_total"] == total
        assert row["budget"] == int(0.9 * total)  # vLLM's default share
        # 4096 tokens x K and V x 4 of 8 KV heads x 128 x bf16 x 32 layers
        assert row["kv"] == 4096 * 2 * 4 * 128 * 2 * 32
    assert [r["node"] for r in report["nodes"]] == ["node1", "node2"]

    assert main(s.cli("fit", "llama")) == 0
    out = capsys.readouterr().out
    assert "fits" in out and "node1" in out and "node2" in out and "safetensors headers" in out


def test_too_big_is_refused_at_preflight_with_nothing_started_and_force_goes_on(
        site, tmp_path, capsys):
    assert mem_total() * 0.9 < DEEPSEEK_TOTAL / 2, "this machine holds DeepSeek-V3 at TP 2"
    s, cache = _site(site, tmp_path)
    snap = snapshot(cache, "deepseek-ai/DeepSeek-V3", "deepseek-v3")
    (snap / "model.safetensors.index.json").write_text(json.dumps(
        {"metadata": {"total_size": DEEPSEEK_TOTAL},
         "weight_map": {"model.embed_tokens.weight": "model-00001-of-000163.safetensors"}},
        indent=2))
    s.recipe("ds", recipe("deepseek-ai/DeepSeek-V3", ["--max-model-len", "8192"]))

    assert main(s.cli("fit", "ds")) == 4
    out = capsys.readouterr().out
    assert "does not fit" in out and "safetensors index" in out

    assert main(s.cli("serve", "ds")) == 4
    err = capsys.readouterr().err
    assert "does not fit" in err and "node1" in err and "--force" in err
    for node in ("node1", "node2"):
        assert _docker_runs(s.hosts, node) == []

    assert main(s.cli("serve", "ds", "--force")) == 0
    captured = capsys.readouterr()
    assert "does not fit" in captured.out  # still said, as a warning
    for node in ("node1", "node2"):
        assert len(_docker_runs(s.hosts, node)) == 1
    assert main(s.cli("stop", "--yes")) == 0


def test_serve_reports_the_fit_step_per_node(site, tmp_path):
    import asyncio

    s, cache = _site(site, tmp_path)
    snap = snapshot(cache, "deepseek-ai/DeepSeek-V3", "deepseek-v3")
    (snap / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {"total_size": DEEPSEEK_TOTAL}}))
    s.recipe("ds", recipe("deepseek-ai/DeepSeek-V3", []))
    rec = Recorder()

    async def go():
        engine = s.engine()
        try:
            return await engine.serve(s.plan("ds"), rec)
        finally:
            await engine.close()

    result = asyncio.run(go())
    assert not result.ok and result.failed_step == "fit"
    assert set(rec.steps("failed")) == {("node1", "fit"), ("node2", "fit")}
    assert not any(step == "launch" for _node, step in rec.steps("started"))


def test_a_model_not_in_the_cache_is_unknown_and_serve_goes_on(site, tmp_path, capsys):
    s, _cache = _site(site, tmp_path)
    s.recipe("toy", recipe("org/toy", ["--max-model-len", "4096"]))
    assert main(s.cli("fit", "toy")) == 5
    out = capsys.readouterr().out
    assert "unknown" in out and "not in the HF cache on node1" in out
    assert main(s.cli("serve", "toy")) == 0
    assert main(s.cli("stop", "--yes")) == 0


def test_an_unreachable_node_is_an_error_naming_it_never_a_fit(fresh_site, tmp_path, capsys):
    cache = tmp_path / "hf"
    s = fresh_site(2, extra_toml=f'[mount_aliases]\nhf_cache = "{cache}"\n')
    snapshot(cache, "meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b")
    s.recipe("llama", recipe("meta-llama/Llama-3.1-8B-Instruct", ["--max-model-len", "4096"]))
    s.hosts.node("node2").kill()
    assert main(s.cli("fit", "llama", "--json")) == 1
    report = json.loads(capsys.readouterr().out)
    rows = {r["node"]: r for r in report["nodes"]}
    assert report["verdict"] == "error"
    assert rows["node2"]["verdict"] == "error"
    assert rows["node2"]["reason"]["code"]  # why, as data: the same in every language
    assert rows["node1"]["verdict"] == "fits"
    assert rows["node1"]["weights_from"] == "config"  # no weights on disk: the count
