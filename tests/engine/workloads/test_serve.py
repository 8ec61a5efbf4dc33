"""serve and stop end to end on real sshd test hosts with the docker stand-in."""

from __future__ import annotations

import asyncio
import re

import pytest
from lookalike import Why
from site_support import Recorder, toy_recipe

from sparktui.cli import main

# A look-alike, not the real vLLM (tests/lookalike.py): engines exiting at a set point, SGLang,
# 2-node TP groups.
LOOKALIKE = (Why.FAULT, Why.SGLANG, Why.SPEED, Why.MULTI_NODE)


def _docker_runs(hosts, node) -> list[list[str]]:
    return [argv for argv in hosts.recorded_docker(node) if argv[:2] == ["docker", "run"]]


def _running(hosts, node) -> list[str]:
    out = hosts.ssh(node, "docker ps --format '{{.Names}}'")
    return [line for line in out.stdout.split() if line]


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
@pytest.mark.parametrize("n", [2, 4])
def test_serve_runs_the_plans_argv_on_every_node_then_stop(site, engine, n):
    s = site(n)
    s.recipe("toy", toy_recipe(engine, nodes=n))
    plan = s.plan("toy")
    rec = Recorder()

    async def go():
        engine_ = s.engine()
        try:
            result = await engine_.serve(plan, rec)
            health = await engine_.health("test")
            return result, health
        finally:
            await engine_.close()

    result, health = asyncio.run(go())
    assert result.ok, result
    run_ids = set()
    for node in plan.nodes:
        [run] = _docker_runs(s.hosts, node.name)
        # the plan's argv, with a run id fresh for each container (issue 28)
        assert run[:3] == ["docker", "run", "--label"] and run[4:] == node.launch[2:]
        assert re.fullmatch(r"sparktui\.run=[0-9a-f]{16}", run[3]), run[3]
        run_ids.add(run[3])
    assert len(run_ids) == len(plan.nodes)
    launches = [node for node, step in rec.steps("ok") if step == "launch"]
    assert launches == plan.start_order  # workers first, head last
    assert health.serving
    head = next(row for row in health.nodes if row.node == plan.head.name)
    assert head.engine is not None and head.engine.models == ["org/toy"]
    assert len(health.workloads) == n

    assert main(s.cli("stop", "--yes")) == 0
    for node in plan.nodes:
        assert _running(s.hosts, node.name) == []


def test_stop_without_confirmation_is_refused_and_leaves_everything_running(site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0
    capsys.readouterr()
    assert main(s.cli("stop")) == 3  # no TTY on stdin, no --yes
    err = capsys.readouterr().err
    assert "--yes" in err
    for node in ("node1", "node2"):
        assert _running(s.hosts, node) == ["sparktui-toy"]
        assert not any(a[:2] == ["docker", "stop"] for a in s.hosts.recorded_docker(node))
    assert main(s.cli("stop", "--yes")) == 0


def test_before_serve_abort_leaves_nothing_running(site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe(extra='before_serve = ["echo preparing", '
                                      '{ command = "exit 7", on_failure = "abort" }]'))
    assert main(s.cli("serve", "toy")) == 1
    err = capsys.readouterr().err
    assert "before_serve" in err and "exit 7" in err
    for node in ("node1", "node2"):
        assert _docker_runs(s.hosts, node) == []


def test_before_serve_warn_goes_on(site):
    s = site(2)
    s.recipe("toy", toy_recipe(extra='before_serve = [{ command = "false", on_failure = "warn" }]'))
    rec = Recorder()

    async def go():
        e = s.engine()
        try:
            return await e.serve(s.plan("toy"), rec)
        finally:
            await e.stop("test", rec)
            await e.close()

    assert asyncio.run(go()).ok
    assert ("node1", "before_serve") in rec.steps("warn")


def test_engine_dying_while_loading_fails_with_its_last_lines_and_rolls_back(site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe(env='STANDIN_READY_AFTER = "30"\nSTANDIN_EXIT_AFTER = "1"\n'
                                   'STANDIN_EXIT_CODE = "3"'))
    assert main(s.cli("serve", "toy")) == 1
    err = capsys.readouterr().err
    assert "exited" in err
    assert "ERROR" in err  # the stand-in's last log lines are shown
    for node in ("node1", "node2"):
        names = s.hosts.ssh(node, "docker ps -a --format '{{.Names}}'").stdout.split()
        assert names == []


def test_missing_image_fails_preflight_and_runs_nothing(site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe())
    s.hosts.node("node2").remove_image("vllm:test")
    assert main(s.cli("serve", "toy")) == 1
    err = capsys.readouterr().err
    assert "node2" in err and "not present" in err
    assert _docker_runs(s.hosts, "node1") == [] and _docker_runs(s.hosts, "node2") == []


def test_dry_run_runs_nothing(site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy", "-d")) == 0
    assert "docker run" in capsys.readouterr().out
    assert s.hosts.recorded_docker("node1") == []
