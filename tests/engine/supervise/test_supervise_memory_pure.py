"""Before a restart, each node's memory back to what the recipe needs (issue 29, item
13), from figures alone: the fit's claim of the engine, a node that is short, the wait
that ends when memory comes back, when an operator acts, or at its bound; the setting."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest
from plan_support import DUO, make_plan

from sparktui.config.loader import load_config
from sparktui.engine.remote.transport import Completed, NodeError
from sparktui.engine.remote.transport import Reason as NodeReason
from sparktui.engine.supervise.codes import reason_said
from sparktui.engine.supervise.memory import memory_back, share_of, short
from sparktui.engine.supervise.policy import Policy
from sparktui.engine.supervise.record import Mark, Reason
from sparktui.errors import SparkError
from sparktui.plan.fit.calc import ENGINE_OVERHEAD, engine_claim

GB = 1e9


def meminfo(total: float, available: float) -> str:
    return (f"MemTotal:       {int(total // 1024)} kB\nMemFree:        1000 kB\n"
            f"MemAvailable:   {int(available // 1024)} kB\nCached:         5 kB\n")


def test_the_claim_is_the_engines_share_and_sglang_its_own_memory_besides():
    assert engine_claim("vllm", 0.9, 128 * 10**9) == int(0.9 * 128 * 10**9)
    assert engine_claim("sglang", 0.85, 128 * 10**9) == int(0.85 * 128 * 10**9) \
        + ENGINE_OVERHEAD


def test_a_node_is_short_when_what_is_available_is_below_the_claim():
    found = short("spark2", meminfo(128 * GB, 12 * GB), "vllm", 0.9)
    assert found is not None and found.node == "spark2"
    assert abs(found.available - 12 * GB) < 2048 and abs(found.needed - 115.2 * GB) < 1e4
    assert short("spark2", meminfo(128 * GB, 120 * GB), "vllm", 0.9) is None
    # figures that cannot be read are no verdict: the serve says what is wrong there
    for text in ("", "garbage", "MemTotal: inf kB\nMemAvailable: 5 kB",
                 "MemTotal: 5 kB\nMemAvailable: nan kB", "MemTotal: 100 kB"):
        assert short("spark2", text, "vllm", 0.9) is None, text


def test_the_share_is_the_recipes_flag_else_the_engines_default(tmp_path):
    given = make_plan(tmp_path, DUO, 'engine = "vllm"\ndocker_image = "i:1"\nmodel = "o/m"\n'
                      'args = ["--gpu-memory-utilization", "0.5"]\n')
    assert share_of(given) == 0.5
    default = make_plan(tmp_path, DUO, 'engine = "vllm"\ndocker_image = "i:1"\nmodel = "o/m"\n')
    assert share_of(default) == 0.9
    bad = make_plan(tmp_path, DUO, 'engine = "vllm"\ndocker_image = "i:1"\nmodel = "o/m"\n'
                    'args = ["--gpu-memory-utilization", "most"]\n')
    assert share_of(bad) is None  # nothing to compare with: no wait


@dataclass
class _Node:
    name: str


class FakeNode:
    """A node whose MemAvailable follows ``available`` (a list: one value per look)."""

    def __init__(self, name: str, *available: float | None) -> None:
        self.node, self.looks, self.available = _Node(name), 0, list(available)

    async def run(self, command: str, timeout: float | None = None, **_kw) -> Completed:
        assert command == "cat /proc/meminfo"
        value = self.available[min(self.looks, len(self.available) - 1)]
        self.looks += 1
        if value is None:
            raise NodeError(self.node.name, NodeReason.SSH_ERROR, "refused")
        return Completed(0, meminfo(128 * GB, value), "")


def _memory_back(plan, nodes: dict[str, FakeNode], bound: float, mark: Mark | None = None):
    """The supervisor's own wait (``memory_back``) on these nodes, looking every 0.05 s:
    what it returned, and the short nodes it told. ``bound`` is the wait under test; a
    bound of 30 s only bounds a failure (the memory comes back, or a mark is read, at the
    first looks)."""
    heard: list = []

    async def disarming() -> Mark | None:
        return mark

    async def waiting(shorts) -> None:
        heard.append(shorts)

    async def go():
        return await memory_back(plan, nodes, bound=bound, interval=0.05, timeout=1,
                                 disarming=disarming, waiting=waiting)

    return asyncio.run(go()), heard


@pytest.fixture
def plan(tmp_path):
    return make_plan(tmp_path, DUO, 'engine = "vllm"\ndocker_image = "i:1"\nmodel = "o/m"\n'
                     "required_nodes = 2\ntensor_parallel_size = 2\n")


def test_memory_that_comes_back_lets_the_restart_go_on(plan):
    nodes = {"alpha": FakeNode("alpha", 120 * GB), "beta": FakeNode("beta", 5 * GB, 5 * GB,
                                                                      120 * GB)}
    result, heard = _memory_back(plan, nodes, bound=30)
    assert result is None and nodes["beta"].looks == 3
    assert [[s.node for s in shorts] for shorts in heard] == [["beta"]]  # said once


def test_memory_that_does_not_come_back_is_a_give_up_at_the_bound(plan):
    nodes = {"alpha": FakeNode("alpha", 120 * GB), "beta": FakeNode("beta", 5 * GB)}
    result, heard = _memory_back(plan, nodes, bound=0.3)
    assert isinstance(result, Reason) and result.code == "memory_not_reclaimed"
    assert result.values["node"] == "beta" and result.values["waited"] >= 0.3
    assert len(heard) == 1 and nodes["beta"].looks >= 2  # looked again until the bound
    text = str(reason_said(result))
    assert text.startswith("memory not reclaimed on beta: reboot it (")
    assert "available of the" in text and "demo needs" in text


def test_an_operators_stop_during_the_wait_wins_and_an_unread_node_is_not_short(plan):
    mark = Mark("m", "stop", "duo")
    nodes = {"alpha": FakeNode("alpha", 120 * GB), "beta": FakeNode("beta", 5 * GB)}
    assert _memory_back(plan, nodes, bound=30, mark=mark)[0] == mark
    unread = {"alpha": FakeNode("alpha", 120 * GB), "beta": FakeNode("beta", None)}
    assert _memory_back(plan, unread, bound=30) == (None, [])


def test_the_bound_is_a_setting_with_a_default(tmp_path):
    cluster = ('\n[[clusters]]\nname = "c"\n'
               'nodes = [{ name = "n1", ssh_ip = "10.0.0.1", rank = 0 }]\n')
    path = tmp_path / "config.toml"
    path.write_text(cluster)
    assert Policy.from_config(load_config(path).config).memory_wait == 120.0
    path.write_text("supervise_memory_wait_seconds = 0\n" + cluster)
    assert Policy.from_config(load_config(path).config).memory_wait == 0.0  # look once
    path.write_text("supervise_memory_wait_seconds = -1\n" + cluster)
    with pytest.raises(SparkError) as caught:
        load_config(path)
    assert "supervise_memory_wait_seconds" in caught.value.render()
