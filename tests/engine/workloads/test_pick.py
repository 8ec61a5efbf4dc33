"""Which container a shell or an inspect goes to (sparktui.engine.workloads.pick): pure."""

from __future__ import annotations

from sparktui.engine.status import Workload
from sparktui.engine.workloads.pick import containers, recipes_of


def _work(name: str, recipe: str, cluster: str = "c", role: str = "head",
          runtime: str = "docker", state: str = "running") -> Workload:
    return Workload(name, recipe, cluster, "n1", 0, role, runtime, state)


def test_the_clusters_engine_first_then_services_then_other_clusters():
    found = [_work("svc", "b", role="service"), _work("other", "a", cluster="d"),
             _work("tmux", "t", runtime="tmux"), _work("gone", "e", state="exited"),
             _work("eng", "b")]
    assert [w.name for w in containers(found, "c")] == ["eng", "gone", "svc", "other"]
    assert [w.name for w in containers(found, "c", running=True)] == ["eng", "svc", "other"]
    assert [w.name for w in containers(found, "c", "b")] == ["eng", "svc"]
    assert containers(found, "c", "t") == []  # a tmux session has no container
    assert recipes_of(containers(found, "c", running=True)) == ["b", "a"]
