"""The model pull on real sshd test hosts, each with its own dockerd: the snapshot is
asked of a real Hub server (olah on loopback, tests/hub_support.py), downloaded once on
one node by the real huggingface_hub client in the recipe's image (the real vLLM's test
image: its python3 sees the vLLM venv, which ships huggingface_hub as vLLM's images do),
and copied to the other nodes by real rsync over the nodes' own ssh."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from hosts.testimage import real_vllm
from hub_support import Lfs, olah, use_hub
from polling import eventually, eventually_async
from pull_proxy import HubProxy
from range_shim import RangeShim

from pull.model_support import (
    TOKEN,
    cache_of,
    docker_runs,
    files_of,
    model_repo,
    pull_async,
    recipe,
    repo_folder,
    run_pull,
)
from sparktui.config.loader import load_config
from sparktui.engine.pull.model_node import PARTIAL
from sparktui.plan.pull.model import DOWNLOAD

pytestmark = pytest.mark.hosts
__all__ = ["olah"]  # the fixture, used by name


def _site(site, n: int, olah, monkeypatch, repo: str, files, *, trust: bool = True,
          token: str | None = TOKEN, endpoint: str | None = None):
    real_vllm.required()
    s = site(n)
    real_vllm.install(s.hosts.node("node1"))  # the download node has the recipe's image
    commit = olah.add(repo, files)
    use_hub(monkeypatch, endpoint or olah.url, token)
    s.recipe("m", recipe(repo, n))
    if trust:
        s.hosts.trust_nodes()
    return s, commit


def _recognised(node, repo: str, commit: str, files) -> None:
    """huggingface_hub itself, pointed at the node's cache, finds every file."""
    from huggingface_hub import scan_cache_dir, try_to_load_from_cache

    hub = cache_of(node) / "hub"
    info = {r.repo_id: r for r in scan_cache_dir(hub).repos}[repo]
    revision = next(r for r in info.revisions if r.commit_hash == commit)
    assert {str(f.file_name) for f in revision.files} >= {p.rsplit("/", 1)[-1] for p in files}
    assert "main" in revision.refs
    for path, content in files.items():
        found = try_to_load_from_cache(repo, path, cache_dir=hub, revision="main")
        data = content.encode() if isinstance(content, str) else content
        assert isinstance(found, str) and Path(found).read_bytes() == data, (node, path)


def test_downloaded_once_and_copied_to_the_others(site, olah, monkeypatch):
    repo, files = "pull/once", model_repo()
    s, commit = _site(site, 3, olah, monkeypatch, repo, files)
    pulled = run_pull(s, "m")
    assert pulled.result.ok, pulled.text()
    nodes = [s.hosts.node(f"node{i}") for i in (1, 2, 3)]
    for node in nodes:
        _recognised(node, repo, commit, files)
    # one download, on the head, in the recipe's image; the others copied over the fabric
    runs = docker_runs(s.hosts, nodes[0])
    assert len(runs) == 1 and real_vllm.REF in runs[0] and "python3" in runs[0]
    assert not docker_runs(s.hosts, nodes[1]) and not docker_runs(s.hosts, nodes[2])
    sources = {(t.node, t.source) for t in pulled.transfers}
    assert ("node1", "hub") in sources
    assert {t.node for t in pulled.transfers if t.source.startswith("node")} == {"node2", "node3"}
    left = [name for n in nodes for name in files_of(repo_folder(n, repo))
            if ".sparktui" in name or name.endswith(".incomplete")]
    assert not left, left  # no pid file, partial copy or partial download left behind
    # the token went to the Hub, never into an argv, a step or a transfer
    assert TOKEN not in pulled.text()
    assert all(TOKEN not in word for run in runs for word in run)

    again = run_pull(s, "m")  # everything verified in place: nothing moves
    assert again.result.ok and not docker_runs(s.hosts, nodes[1])
    assert len(docker_runs(s.hosts, nodes[0])) == 1
    assert "already" in again.text()


def test_disk_short_is_refused_naming_node_need_and_free(site, olah, monkeypatch):
    repo = "pull/huge"
    files = {"config.json": "{}", "model.safetensors": Lfs(900 << 30, "ab" * 32)}
    s, _ = _site(site, 2, olah, monkeypatch, repo, files)
    pulled = run_pull(s, "m")
    assert not pulled.result.ok
    words = str(pulled.result.detail)
    assert pulled.result.failed_node == "node1" and "node1 needs" in words and "free" in words
    assert not any(docker_runs(s.hosts, n) for n in s.hosts.nodes)
    assert all(not repo_folder(n, repo).exists() for n in s.hosts.nodes)
    assert not pulled.transfers


def test_nodes_that_do_not_trust_each_other_are_refused_before_anything_moves(
        site, olah, monkeypatch):
    repo, files = "pull/untrusted", model_repo(1 << 20)
    s, _ = _site(site, 2, olah, monkeypatch, repo, files, trust=False)
    pulled = run_pull(s, "m")
    assert not pulled.result.ok and pulled.result.failed_node == "node1"  # the one to fix
    assert "node1 cannot reach node2 over SSH" in str(pulled.result.detail)
    assert "Host key verification failed" in str(pulled.result.detail)
    assert not any(docker_runs(s.hosts, n) for n in s.hosts.nodes)
    assert all(not repo_folder(n, repo).exists() for n in s.hosts.nodes)


def test_a_corrupted_copy_is_a_failure_naming_the_file_and_is_removed(
        site, olah, monkeypatch):
    repo, files = "pull/corrupt", model_repo(1 << 20)
    s, _ = _site(site, 2, olah, monkeypatch, repo, files)
    assert run_pull(s, "m").result.ok
    # node2's blob replaced by other bytes of the same size and time: rsync's quick
    # check takes it for the same file, only the hash on the target tells
    blobs = repo_folder(s.hosts.node("node2"), repo) / "blobs"
    blob = max(blobs.iterdir(), key=lambda p: p.stat().st_size)
    stamp = blob.stat()
    blob.write_bytes(os.urandom(stamp.st_size))
    os.utime(blob, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    pulled = run_pull(s, "m")
    assert not pulled.result.ok and pulled.result.failed_node == "node2"
    assert "model.safetensors" in str(pulled.result.detail)
    assert not blob.exists()  # not left looking complete


def test_an_interrupted_download_ends_its_container_and_leaves_nothing_complete(
        site, olah, monkeypatch):
    """Ctrl+C during the download: the container is removed, the blob has only its
    partial name (``.sparktui-download``) and no snapshot link; the next pull completes.
    (olah's offline mirror answers the next pull's Range with the whole file: how much is
    fetched again is the next test's, through a hop that answers Range as the Hub does.)"""
    size = 24 << 20
    repo, files = "pull/interrupted", model_repo(size)
    host, port = olah.url.removeprefix("http://").split(":")
    proxy = HubProxy((host, int(port)))
    s, _ = _site(site, 1, olah, monkeypatch, repo, files, endpoint=proxy.url)
    node = s.hosts.node("node1")
    # The Hub's bytes stop past 20 MiB, a point the test sets: huggingface_hub writes
    # what it receives in chunks of 10 MiB (DOWNLOAD_CHUNK_SIZE), so two are on disk.
    proxy.hold((20 << 20) + (48 << 10))

    async def interrupted() -> None:
        task = asyncio.ensure_future(pull_async(s, "m"))
        await eventually_async(proxy.held.is_set, what="the download reached the hold")
        blobs = repo_folder(node, repo) / "blobs"
        await eventually_async(lambda: any(p.name.endswith(DOWNLOAD)
                                           and p.stat().st_size >= 20 << 20
                                           for p in blobs.glob("*")),
                               what="a partial blob on the node")
        task.cancel()  # Ctrl+C
        with pytest.raises(asyncio.CancelledError):
            await task

    try:
        asyncio.run(interrupted())
        listing = files_of(repo_folder(node, repo))
        weights = [n for n in listing if n.startswith("blobs/") and listing[n] >= 20 << 20]
        assert weights and all(n.endswith(DOWNLOAD) for n in weights), listing
        assert not any(n.startswith("snapshots/") and n.endswith("model.safetensors")
                       for n in listing), listing  # nothing half-written looks complete
        assert not [c for c in node.daemon.api.containers()
                    if any(n.startswith("/sparktui-pull") for n in c.get("Names") or [])]
        proxy.release()
        pulled = run_pull(s, "m")
        assert pulled.result.ok, pulled.text()
    finally:
        proxy.close()


def test_an_interrupted_download_resumes_fetching_again_under_5_percent(
        site, olah, monkeypatch):
    """Ctrl+C with the weights' download at ~80%; the next pull resumes the partial blob
    with a Range request (the shim answers it, as the Hub does: olah's offline mirror
    would send the whole file, tests/range_shim.py), so the Hub sends again under 5% of
    the file beyond what was still missing."""
    size = 24 << 20
    repo, files = "pull/download-resume", model_repo(size)
    host, port = olah.url.removeprefix("http://").split(":")
    shim = RangeShim((host, int(port)))
    shim_host, shim_port = shim.url.removeprefix("http://").split(":")
    proxy = HubProxy((shim_host, int(shim_port)))
    s, _ = _site(site, 1, olah, monkeypatch, repo, files, endpoint=proxy.url)
    node = s.hosts.node("node1")
    proxy.hold((20 << 20) + (48 << 10))  # two 10 MiB chunks written, as above

    async def interrupted() -> None:
        task = asyncio.ensure_future(pull_async(s, "m"))
        await eventually_async(proxy.held.is_set, what="the download reached the hold")
        blobs = repo_folder(node, repo) / "blobs"
        await eventually_async(lambda: any(p.name.endswith(DOWNLOAD)
                                           and p.stat().st_size >= 20 << 20
                                           for p in blobs.glob("*")),
                               what="a partial blob on the node")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    try:
        asyncio.run(interrupted())
        partial = max((p.stat().st_size for p in (repo_folder(node, repo) / "blobs").glob(
            "*" + DOWNLOAD)), default=0)
        proxy.release()
        proxy.reset()
        pulled = run_pull(s, "m")
        assert pulled.result.ok, pulled.text()
        assert shim.ranges and shim.ranges[-1].startswith(f"bytes={partial}-"), "\n".join(
            map(str, shim.seen))
        again = proxy.down - (size - partial)  # beyond what was still missing
        assert again < size * 0.05, (proxy.down, partial, size)
        blob = repo_folder(node, repo) / "snapshots"
        assert any(p.name == "model.safetensors" and p.read_bytes() == files["model.safetensors"]
                   for p in blob.rglob("*"))
    finally:
        proxy.close()
        shim.close()


def test_an_interrupted_copy_resumes_sending_again_under_5_percent(site, olah, monkeypatch):
    """Ctrl+C while node1 copies the weights to node2: the copy's bytes stop at half the
    file, at a proxy between node1 and node2's sshd (node2's fabric address in the
    config; its host key under that address in node1's known_hosts). The half-copied
    blob is kept aside without its name; the next pull sends under 5% of it again."""
    size = 24 << 20
    repo, files = "pull/copy-resume", model_repo(size)
    s, _ = _site(site, 2, olah, monkeypatch, repo, files)
    node1, node2 = s.hosts.node("node1"), s.hosts.node("node2")
    fabric = node2.addr.rsplit(".", 1)[0] + ".250"
    proxy = HubProxy((node2.addr, node2.port), listen=(fabric, node2.port), hold_up=True)
    text = s.config_path.read_text().replace(
        f'ib_ip = "{node2.addr}"', f'ib_ip = "{fabric}"')
    s.config_path.write_text(text)
    s.loaded = load_config(s.config_path)
    kind, key = node2.host_key_pub.split()[:2]
    with (node1.home / ".ssh" / "known_hosts").open("a") as known:
        known.write(f"[{fabric}]:{node2.port} {kind} {key}\n")
    proxy.hold(size // 2)
    blobs = repo_folder(node2, repo) / "blobs"

    async def interrupted() -> None:
        task = asyncio.ensure_future(pull_async(s, "m"))
        await eventually_async(proxy.held.is_set, what="the copy reached the hold")
        task.cancel()  # Ctrl+C
        with pytest.raises(asyncio.CancelledError):
            await task

    try:
        asyncio.run(interrupted())
        first = proxy.up
        proxy.release()  # the connection ends: node2's rsync keeps what it has aside
        eventually(lambda: any(p.stat().st_size > size // 4
                               for p in (blobs / PARTIAL).glob("*")),
                   what="the partial blob kept aside on node2",
                   explain=lambda: repr(files_of(blobs)))
        listing = files_of(repo_folder(node2, repo))
        assert not any(n.startswith("blobs/") and "/" not in n[6:] and listing[n] >= size // 4
                       for n in listing), listing  # never under the blob's own name
        assert not any(n.startswith("snapshots/") for n in listing), listing
        proxy.reset()
        pulled = run_pull(s, "m")
        assert pulled.result.ok, pulled.text()
        _recognised(node2, repo, _commit(s, repo), files)
        again = first + proxy.up - size
        assert again < size * 0.05, (first, proxy.up)
        assert len(docker_runs(s.hosts, node1)) == 1  # the Hub was not asked for it again
    finally:
        proxy.close()


def _commit(s, repo: str) -> str:
    root = repo_folder(s.hosts.node("node1"), repo)
    return (root / "refs" / "main").read_text()


def test_the_engine_pulls_into_the_configured_hf_cache(site, olah, monkeypatch, tmp_path):
    """``ClusterControl.pull_model``: the config's ``hf_cache`` is each node's cache."""
    real_vllm.required()
    cache = tmp_path / "hf"
    s = site(1, extra_toml=f'[mount_aliases]\nhf_cache = "{cache}"\n')
    real_vllm.install(s.hosts.node("node1"))
    repo, files = "pull/engine", model_repo(1 << 20)
    commit = olah.add(repo, files)
    use_hub(monkeypatch, olah.url)
    s.recipe("m", recipe(repo, 1))
    events, transfers = [], []

    async def go():
        engine = s.engine()
        try:
            return await engine.pull_model(s.plan("m"), events.append, transfers.append)
        finally:
            await engine.close()

    result = asyncio.run(go())
    assert result.ok, [str(e.detail) for e in events]
    # imported once the Hub is named: huggingface_hub freezes HF_HUB_OFFLINE at import
    from huggingface_hub import scan_cache_dir

    info = {r.repo_id: r for r in scan_cache_dir(cache / "hub").repos}[repo]
    assert {r.commit_hash for r in info.revisions} == {commit}
    assert transfers and transfers[-1].done == transfers[-1].total
