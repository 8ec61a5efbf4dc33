"""``sparktui pull`` with both halves, as an operator runs it: the recipe's image (the real
vLLM's test image, on node1 only) copied to node2, then the model downloaded once from a
real Hub server (olah on loopback) by the real huggingface_hub inside that image, into the
configured HF cache, and checked against the Hub's hashes. ``--json`` carries both
kinds of transfer and the result names the image and the model.

The test nodes share this machine's file system, so the configured ``hf_cache`` is one
folder for both: node2 finds the files there, hashes them against the Hub and takes them
as its own, as a node with the files already on its disk does. The copy between
separate caches is tests/engine/pull/test_pull_model.py's."""

from __future__ import annotations

import json

import pytest
from hosts.testimage import real_vllm
from hub_support import olah, use_hub

from sparktui.cli import main

pytestmark = pytest.mark.hosts
__all__ = ["olah"]  # the fixture, used by name
TOKEN = "hf_cli_pull_token_never_shown_0123456789"
FILES: dict[str, bytes | str] = {"config.json": '{"model_type": "llama"}',
                                 "model.safetensors": bytes(range(256)) * 4096}


def test_pull_puts_the_image_and_the_model_on_every_node(site, olah, monkeypatch, capsys):
    real_vllm.required()
    s = site(2)
    node1, node2 = s.hosts.node("node1"), s.hosts.node("node2")
    real_vllm.install(node1)
    hf = s.root / "hf-shared"
    with s.config_path.open("a") as f:
        f.write(f'\n[mount_aliases]\nhf_cache = "{hf}"\n')
    repo, files = "pull/cli", FILES
    commit = olah.add(repo, files)
    use_hub(monkeypatch, olah.url, TOKEN)
    s.recipe("m", f'engine = "vllm"\ndocker_image = "{real_vllm.REF}"\nmodel = "{repo}"\n'
                  'port = 30072\nrequired_nodes = 2\ntensor_parallel_size = 2\n')
    s.hosts.trust_nodes()
    capsys.readouterr()
    assert main(s.cli("pull", "m", "--json", "--yes")) == 0, capsys.readouterr()
    out = capsys.readouterr().out
    assert TOKEN not in out
    lines = [json.loads(line) for line in out.splitlines()]
    end = lines[-1]
    assert (end["result"], end["image"], end["model"]) == ("pulled", real_vllm.REF, repo)
    kinds = {(t["kind"], t["node"], t["source"]) for t in lines if "kind" in t}
    assert ("image", "node2", "node1") in kinds  # node1 had the image: copied, no registry
    assert ("model", "node1", "hub") in kinds  # node1 has the image: it downloads
    assert {line["step"] for line in lines if "step" in line} == {"pull_image", "pull_model"}
    assert node2.image_id(real_vllm.REF) == node1.image_id(real_vllm.REF)
    snapshot = hf / "hub" / f"models--{repo.replace('/', '--')}" / "snapshots" / commit
    assert (snapshot / "model.safetensors").read_bytes() == files["model.safetensors"]
    assert (hf / "hub" / f"models--{repo.replace('/', '--')}" / "refs" / "main"
            ).read_text().strip() == commit
