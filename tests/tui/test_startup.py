"""The first frame's peek at config.toml: names only, never an error (the load reports)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sparktui.config.loader import LOCAL_CLUSTER
from sparktui.errors import SparkError
from sparktui.tui.startup import BUILTIN_CLUSTER, peek_clusters, pending_config
from tui.support import EXAMPLE_CONFIG


def test_peek_reads_cluster_and_node_names_in_file_order() -> None:
    clusters = peek_clusters(EXAMPLE_CONFIG)
    assert [name for name, _ in clusters] == ["2nodes", "2nodes-b", "4nodes-switch"]
    assert clusters[0][1] == ("spark1", "spark2")


def test_peek_of_the_builtin_config_matches_the_loaded_one() -> None:
    """The first frame already shows this machine as the local cluster's one node."""
    from sparktui.config.loader import builtin_config

    assert BUILTIN_CLUSTER == LOCAL_CLUSTER
    loaded = builtin_config().clusters[0]
    assert peek_clusters(None) == ((loaded.name, tuple(n.name for n in loaded.nodes)),)


@pytest.mark.parametrize("text", ["[[clusters]\nname = ", "clusters = 3\n",
                                  "[[clusters]]\nnodes = []\n"])
def test_peek_of_a_broken_file_shows_nothing(tmp_path: Path, text: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    assert peek_clusters(path) == ()
    assert peek_clusters(tmp_path / "missing.toml") == ()


def test_peek_skips_what_it_cannot_name(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[[clusters]]\nname = "a"\nnodes = [{ name = "n1" }, { ssh_ip = "x" }, 3]\n'
                    '[[clusters]]\nname = 7\n')
    assert peek_clusters(path) == (("a", ("n1",)),)


def test_pending_config_when_discovery_fails(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPARKTUI_CONFIG", str(tmp_path / "gone.toml"))
    pending = pending_config(None)
    assert pending.path is None and pending.clusters == ()
    with pytest.raises(SparkError) as err:
        pending.load()  # what the error screen shows once the frame is out
    assert "gone.toml" in err.value.render()


def test_pending_config_loads_what_it_peeked() -> None:
    pending = pending_config(EXAMPLE_CONFIG)
    assert pending.path == EXAMPLE_CONFIG
    loaded = pending.load()
    assert tuple((c.name, tuple(n.name for n in c.nodes)) for c in loaded.config.clusters) \
        == pending.clusters
