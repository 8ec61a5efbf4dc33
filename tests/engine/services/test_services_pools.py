"""Terminal services: the run ends when every instance has exited, with the worst exit
code, end to end on four real sshd test hosts (recipes and a hand-built plan)."""

from __future__ import annotations

import asyncio

import pytest
from lookalike import Why
from service_support import service, services_only
from site_support import Recorder
from test_services_recipes import POOLS

from sparktui.cli import main
from sparktui.plan.service_model import Readiness

# A look-alike, not the real vLLM (tests/lookalike.py): services that end with set exit codes on
# four nodes.
LOOKALIKE = Why.SERVICES


def _nodes(s):
    return s.loaded.config.clusters[0].ranked


def _all_names(s, node: str) -> list[str]:
    return s.hosts.ssh(node, "docker ps -a --format '{{.Names}}'").stdout.split()


def _pools_plan(s, train_command: list[str]):
    n1, n2, n3, n4 = _nodes(s)
    train = service("train", [n1, n2], train_command, terminal=True, pool="train")
    store = service("store", [n3, n4], ["store-server", "--port", "7100"], pool="store",
                    env={"STANDIN_LISTEN": "7100"}, readiness=Readiness("tcp", port=7100))
    watcher = service("watcher", [n1, n2], ["sleep", "600"], pool="train")
    return services_only("test", [store, train, watcher])


@pytest.mark.parametrize(("exit_line", "code"), [
    ("sleep 0.5; exit $(( {index} * 3 ))", 3),  # 0 and 3: the worst wins
    ("exit 0", 0),
    # killed: 128 + the signal. The trainer is the shell's child: a container's PID 1
    # cannot be sent SIGKILL from inside it (docker shows this, the stand-in did not).
    ("sh -c 'kill -9 $$'; exit $?", 137),
])
def test_a_terminal_services_exit_code_becomes_the_runs(site, capsys, exit_line, code):
    s = site(4)
    s.recipe("pools", POOLS.replace("sleep 1; EXIT", exit_line))
    assert main(s.cli("serve", "pools")) == code
    out = capsys.readouterr().out
    assert f"terminal services exited with code {code}" in out
    assert main(s.cli("stop", "--yes")) == 0


def test_terminal_run_reports_each_instance_as_it_exits(site):
    s = site(4)
    plan = _pools_plan(s, ["sh", "-c", "sleep {index}; exit {index}"])
    rec = Recorder()

    async def go():
        engine = s.engine()
        try:
            return await engine.serve(plan, rec), await engine.stop("test", rec)
        finally:
            await engine.close()

    served, stopped = asyncio.run(go())
    assert served.ok and served.exit_code == 1 and stopped.ok
    said = [(e.node, str(e.detail)) for e in rec.events if e.step == "service"]
    exits = [(n, d) for n, d in said if d.startswith("train[") and "exited" in d]
    assert ("node1", "train[0]: exited 0") in exits and ("node2", "train[1]: exited 1") in exits
    for node in ("node1", "node2", "node3", "node4"):
        assert _all_names(s, node) == []


def test_a_critical_service_crashing_during_a_terminal_run_ends_it(site):
    """A services-only run waits for its terminal services; a critical service that dies
    meanwhile fails the run at once (its exit code) and rolls everything back."""
    s = site(4)
    n1, n2, n3, _n4 = _nodes(s)
    # The terminal service would run ten hours: only the critical crash can end this serve.
    train = service("train", [n1, n2], ["sleep", "36000"], terminal=True, pool="train")
    store = service("store", [n3], ["sh", "-c", "sleep 2; echo store lost its disk; exit 4"],
                    critical=True, pool="store")
    plan = services_only("test", [store, train])
    rec = Recorder()

    async def go():
        engine = s.engine()
        try:
            return await engine.serve(plan, rec)
        finally:
            await engine.close()

    served = asyncio.run(go())
    assert not served.ok
    failed = [str(e.detail) for e in rec.events if e.state == "failed" and e.step == "service"]
    assert any("exit code 4" in d and "store lost its disk" in d for d in failed), failed
    for node in ("node1", "node2", "node3"):
        assert _all_names(s, node) == []
