"""Where ``sparktui bench`` sends its load, from a health check's router (no hosts: the
choice is a function of what the check found; tests/engine/bench/test_bench_router.py runs it
on the real router)."""

from __future__ import annotations

import pytest

from sparktui.engine.bench.target import route
from sparktui.engine.status import ClusterHealth, RouterStatus
from sparktui.errors import SparkError

ADDRESS = "http://10.0.0.11:4000/v1"


def health(router: RouterStatus | None) -> ClusterHealth:
    return ClusterHealth(cluster="lab", nodes=[], checked_at=0.0, router=router)


def router(*models: str, ready: bool = True, state: str = "running",
           error: str | None = None) -> RouterStatus:
    return RouterStatus("node1", ADDRESS, state, list(models), ready, error)


def test_auto_takes_the_router_only_when_it_holds_the_model():
    assert route(health(router("org/a", "org/b")), "org/b", "auto") == ("router", None)
    assert route(health(None), "org/b", "auto") == ("head", None)  # no router: no note
    way, note = route(health(router("org/a")), "org/b", "auto")
    assert way == "head" and note is not None
    assert ADDRESS in str(note) and "org/b" in str(note) and "org/a" in str(note)
    way, note = route(health(router(ready=False, state="exited")), "org/b", "auto")
    assert way == "head" and note is not None and "exited" in str(note)
    way, note = route(health(router(ready=False, state="unknown", error="ssh: timed out")),
                      "org/b", "auto")
    assert way == "head" and note is not None and "ssh: timed out" in str(note)


def test_head_goes_around_a_router_that_holds_the_model():
    assert route(health(router("org/b")), "org/b", "head") == ("head", None)


def test_router_insists_and_is_refused_with_the_reason():
    assert route(health(router("org/b")), "org/b", "router") == ("router", None)
    with pytest.raises(SparkError) as no_router:
        route(health(None), "org/b", "router")
    assert "cluster 'lab' has no router" in no_router.value.render()
    with pytest.raises(SparkError) as lacks:
        route(health(router("org/a")), "org/b", "router")
    text = lacks.value.render()
    assert ADDRESS in text and "does not hold org/b (org/a)" in text and "--via head" in text
    with pytest.raises(SparkError) as down:
        route(health(router(ready=False, state="unknown", error="connection refused")),
              "org/b", "router")
    assert "(connection refused)" in down.value.render()
