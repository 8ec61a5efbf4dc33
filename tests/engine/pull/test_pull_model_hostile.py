"""The model pull against a Hub that lists a hostile file: a path out of the cache
(``../../``), a size that is no size. The Hub is tests/hub_standin.py (``Why.HUB``: olah
reads its listing from git, which holds no such name or size); the real sshd test nodes
are asked nothing and given nothing."""

from __future__ import annotations

import pytest
from hub_standin import StandinRepo, hub_standin
from hub_support import use_hub
from lookalike import Why

from pull.model_support import docker_runs, recipe, repo_folder, run_pull

pytestmark = pytest.mark.hosts
LOOKALIKE = Why.HUB
__all__ = ["hub_standin"]  # the fixture, used by name


@pytest.mark.parametrize(("files", "sizes", "named"), [
    ({"config.json": b"{}", "../../../outside": b"x"}, {}, "../../../outside"),
    ({"config.json": b"{}", "/etc/cron.d/x": b"x"}, {}, "/etc/cron.d/x"),
    ({"config.json": 2, "model.safetensors": 100}, {"model.safetensors": -1},
     "model.safetensors"),
])
def test_a_hostile_file_list_is_refused_naming_the_file(site, hub_standin, monkeypatch,
                                                         files, sizes, named):
    s = site(2)
    hub_standin.repos["evil/model"] = StandinRepo(files, sizes=sizes)
    use_hub(monkeypatch, hub_standin.url)
    s.recipe("m", recipe("evil/model", 2))
    s.hosts.trust_nodes()
    pulled = run_pull(s, "m")
    assert not pulled.result.ok
    assert named in str(pulled.result.detail)
    assert not any(docker_runs(s.hosts, n) for n in s.hosts.nodes)
    assert all(not repo_folder(n, "evil/model").exists() for n in s.hosts.nodes)
    assert not pulled.transfers
