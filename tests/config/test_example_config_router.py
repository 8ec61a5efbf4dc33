"""examples/config.toml is copied by new users: its ``[clusters.router]`` must sit in
the block of the cluster TOML gives it to, and its comment must name that cluster (it
once sat in a paragraph of its own after ``2nodes-b``, read as the next cluster's)."""

from __future__ import annotations

from plan_support import EXAMPLE_CONFIG

from sparktui.config.loader import load_config


def test_the_example_router_belongs_to_the_cluster_its_comment_names() -> None:
    clusters = load_config(EXAMPLE_CONFIG).config.clusters
    with_router = [c.name for c in clusters if c.router is not None]
    assert with_router == ["2nodes-b"]
    lines = EXAMPLE_CONFIG.read_text(encoding="utf-8").splitlines()
    at = lines.index("[clusters.router]")
    start = max(i for i in range(at) if lines[i] == "[[clusters]]")
    block = lines[start:at]
    assert f'name = "{with_router[0]}"' in block
    assert "" not in block, "a blank line splits the router from its cluster's block"
    comment = [line for line in block if line.startswith("#")]
    assert comment and with_router[0] in comment[0]
    others = [c.name for c in clusters if c.router is None]
    assert not any(f" {name} " in " ".join(comment) for name in others)
