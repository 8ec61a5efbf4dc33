"""What a real Docker engine showed the stand-in had hidden (issue: a real Docker engine
under the tests). Each test here failed on the real daemon before its fix."""

from __future__ import annotations

import asyncio
import json
import re

from lookalike import Why
from polling import eventually_async
from site_support import Recorder, toy_recipe

from sparktui.cli import main

# A look-alike, not the real vLLM (tests/lookalike.py): ignores SIGTERM, never ready, SGLang, set
# figures; 2-node groups.
LOOKALIKE = (Why.FAULT, Why.LONG_LOAD, Why.SGLANG, Why.FIGURES, Why.MULTI_NODE)


def _names(s, node: str, all_: bool = True) -> list[str]:
    got = s.hosts.node(node).docker("ps", *(["-a"] if all_ else []), "--format", "{{.Names}}")
    return got.stdout.split()


def _command_timeout(s, seconds: int) -> None:
    text = s.config_path.read_text()
    s.config_path.write_text(re.sub(r"(?m)^command_timeout_seconds = .*$",
                                    f"command_timeout_seconds = {seconds}", text, count=1))


def test_stop_waits_out_the_grace_period_of_an_engine_that_ignores_sigterm(site, capsys):
    # command_timeout (2 s) is shorter than the grace period (4 s): the stop must not be
    # given up under the command timeout a moment before docker's SIGKILL. (The serves
    # run under the site's 15 s: a docker run can take 2 s on a loaded machine.)
    s = site(2)
    s.config_path.write_text(s.config_path.read_text().replace(
        "stop_grace_seconds = 3", "stop_grace_seconds = 4"))
    s.recipe("toy", toy_recipe(env='STANDIN_ON_SIGTERM = "ignore"'))
    assert main(s.cli("serve", "toy")) == 0
    capsys.readouterr()
    _command_timeout(s, 2)
    assert main(s.cli("stop", "--yes")) == 0, capsys.readouterr()
    for node in ("node1", "node2"):
        assert _names(s, node) == []  # nothing exited left behind
        stops = [a for a in s.hosts.recorded_docker(node) if a[1] == "stop"]
        assert stops and stops[0][2:4] == ["-t", "4"]
    _command_timeout(s, 15)
    assert main(s.cli("serve", "toy")) == 0  # and the next serve is not refused
    assert main(s.cli("stop", "--yes")) == 0


def test_stop_signals_the_head_before_its_workers(site):
    s = site(2)
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0
    assert main(s.cli("stop", "--yes")) == 0
    head = s.hosts.recorded_docker("node1")
    assert ["docker", "kill", "--signal", "TERM", "sparktui-toy"] in head
    assert not any(a[1] == "kill" for a in s.hosts.recorded_docker("node2"))


def test_a_dead_docker_daemon_is_never_read_as_idle(fresh_site, capsys):
    s = fresh_site(2)
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0
    s.hosts.node("node2").docker_down()
    capsys.readouterr()
    assert main(s.cli("health")) == 1
    out = capsys.readouterr().out
    node2 = next(line for line in out.splitlines() if line.strip().startswith("node2"))
    assert "docker unreachable" in node2 and "idle" not in node2
    assert main(s.cli("health", "--json")) == 1
    rows = {r["node"]: r for r in json.loads(capsys.readouterr().out)["nodes"]}
    assert rows["node2"]["docker_error"] and rows["node1"]["docker_error"] is None
    # stop may not say "nothing runs" there: it stops what it can see and fails
    assert main(s.cli("stop", "--yes")) == 1
    captured = capsys.readouterr()
    assert "docker unreachable" in captured.out + captured.err
    assert _names(s, "node1") == []
    s.hosts.node("node2").docker_up()


def test_health_of_a_cluster_whose_docker_is_down_says_unknown_not_idle(fresh_site, capsys):
    """Its header said "not serving" (exit 1 below it): the node may be serving."""
    s = fresh_site(1)
    s.hosts.node("node1").docker_down()
    try:
        capsys.readouterr()
        assert main(s.cli("health")) == 1
        header = capsys.readouterr().out.splitlines()[0]
        assert header == "cluster test: unknown: docker on node1 does not answer", header
    finally:
        s.hosts.node("node1").docker_up()


def test_stop_of_an_unknown_recipe_beside_a_dead_docker_never_says_none_runs(fresh_site,
                                                                             capsys):
    """The recipe is no folder's, and whether it runs on node1 is unknown: refused, and
    the refusal says so instead of "none runs"."""
    s = fresh_site(1)
    s.hosts.node("node1").docker_down()
    try:
        capsys.readouterr()
        assert main(s.cli("stop", "--recipe", "nosuch", "--yes")) != 0
        err = capsys.readouterr().err
        assert "none runs" not in err, err
        assert ("what runs on test is unknown: docker on node1 does not answer: nothing "
                "was stopped") in err, err
    finally:
        s.hosts.node("node1").docker_up()


def test_the_cluster_state_names_each_node_that_did_not_say_what_runs() -> None:
    from sparktui.cli.cluster_cmds import cluster_state
    from sparktui.engine.status import ClusterHealth, NodeHealth

    nodes = [NodeHealth("n1", True), NodeHealth("n2", False, error="timeout"),
             NodeHealth("n3", True, docker_error="Cannot connect")]
    assert cluster_state(ClusterHealth("c", nodes, 0.0)) == (
        "unknown: n2 does not answer; docker on n3 does not answer")
    assert cluster_state(ClusterHealth("c", nodes[:1], 0.0)) == "not serving"


def test_the_confirmation_wants_the_name_when_a_nodes_docker_is_down(fresh_site):
    from sparktui.tui.viewmodel.runs import needs_typed_name

    s = fresh_site(2)
    s.hosts.node("node1").docker_down()

    async def go():
        e = s.engine()
        try:
            return await e.health("test")
        finally:
            await e.close()

    health = asyncio.run(go())
    assert not health.serving and not health.all_known and health.all_reachable
    assert needs_typed_name(health)
    s.hosts.node("node1").docker_up()


def test_ray_without_an_entrypoint_runs_the_engines_own(site, capsys):
    s = site(2)
    s.recipe("ray", "\n".join([
        'engine = "vllm"', 'docker_image = "vllm:test"', 'model = "org/toy"', "port = 30013",
        "required_nodes = 2", "tensor_parallel_size = 2", 'distributed_backend = "ray"']) + "\n")
    plan = s.plan("ray")
    assert plan.head.launch[-1].endswith("exec vllm serve org/toy --tensor-parallel-size 2 "
                                         "--pipeline-parallel-size 1 --distributed-executor-"
                                         "backend ray --host 0.0.0.0 --port 30013")
    assert main(s.cli("serve", "ray")) == 0, capsys.readouterr().err
    assert main(s.cli("health")) == 0
    assert "org/toy" in capsys.readouterr().out
    assert main(s.cli("stop", "--yes")) == 0


def test_sglang_publishes_metrics_unless_the_recipe_turns_them_off(site, capsys):
    s = site(2)
    s.recipe("sg", toy_recipe("sglang", port=30014))
    assert main(s.cli("serve", "sg")) == 0, capsys.readouterr().err
    run = next(a for a in s.hosts.recorded_docker("node1") if a[:2] == ["docker", "run"])
    assert "--enable-metrics" in run and "--tp-size" in run and "--tp" not in run
    s.hosts.node("node1").set_engine(running=3, waiting=1, kv=0.25)
    capsys.readouterr()
    assert main(s.cli("health", "--json")) == 0
    head = next(r for r in json.loads(capsys.readouterr().out)["nodes"] if r["engine"])
    assert head["engine"]["metrics_ok"] and head["engine"]["running"] == 3.0
    assert main(s.cli("stop", "--yes")) == 0
    s.recipe("quiet", toy_recipe("sglang", port=30015, extra="engine_metrics = false"))
    assert main(s.cli("serve", "quiet")) == 0
    capsys.readouterr()
    assert main(s.cli("health")) == 0
    assert "no engine metrics" in capsys.readouterr().out
    main(s.cli("doctor"))
    doctor = capsys.readouterr().out
    assert any("engine metrics" in line and "no engine metrics on port 30015" in line
               for line in doctor.splitlines()), doctor
    assert main(s.cli("stop", "--yes")) == 0


def test_a_foreign_tmux_session_named_like_ours_is_not_ours(site, capsys):
    s = site(1)
    s.hosts.ssh("node1", "tmux new-session -d -s sparktui-someone-else 'sleep 600'")
    capsys.readouterr()
    assert main(s.cli("health", "--json")) == 0
    row = json.loads(capsys.readouterr().out)["nodes"][0]
    assert row["workloads"] == []
    assert main(s.cli("stop", "--yes")) == 0
    sessions = s.hosts.ssh("node1", "tmux ls -F '#{session_name}'").stdout.split()
    assert sessions == ["sparktui-someone-else"]  # untouched


def test_a_node_that_dies_during_the_readiness_wait_rolls_back_the_others(fresh_site, capsys):
    # A ready timeout the test cannot reach: node2's death, not the clock, ends the wait.
    s = fresh_site(2, top="ready_timeout_seconds = 3600")
    s.recipe("toy", toy_recipe(env='STANDIN_READY_AFTER = "36000"'))
    plan = s.plan("toy")
    rec = Recorder()

    async def go():
        e = s.engine()
        try:
            serving = asyncio.ensure_future(e.serve(plan, rec))
            await eventually_async(lambda: any(
                ev.step == "ready" and ev.state == "waiting" for ev in rec.events), 60,
                "serve waiting for readiness")
            s.hosts.node("node2").kill()  # the worker's node goes away (sshd and sessions)
            return await serving
        finally:
            await e.close()

    result = asyncio.run(go())
    assert not result.ok and result.failed_node == "node2" and result.failed_step == "ready"
    assert ("node1", "rollback") in rec.steps("ok")
    assert _names(s, "node1") == []


def test_a_non_critical_service_that_dies_at_once_never_fails_the_serve(site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe() + "\n".join([
        "", "[[services]]", 'name = "sidecar"', 'image = "busybox:1"',
        'command = ["sh", "-c", "exit 3"]', "critical = false",
        'placement = { node = "head" }', ""]))
    assert main(s.cli("serve", "toy")) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "sidecar" in out
    assert main(s.cli("stop", "--yes")) == 0


def test_a_log_stream_whose_connection_is_lost_reconnects_and_marks_the_gap(site):
    s = site(2)
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0

    async def go():
        e = s.engine()
        lines = []
        stream = e.logs("test", tail=1, follow=True)
        cut = False
        try:
            async for line in stream:
                lines.append(line)
                if not cut and any(x.node == "node2" for x in lines):
                    cut = True
                    node = s.hosts.node("node2")
                    await asyncio.to_thread(node.kill)  # every connection dies (ConnectionLost)
                    await asyncio.to_thread(node.start)
                gaps = [i for i, x in enumerate(lines) if x.gap and x.node == "node2"]
                if gaps and any(x.node == "node2" and not x.gap for x in lines[gaps[0]:]):
                    break
        finally:
            await stream.aclose()
            await e.close()
        return lines

    lines = asyncio.run(asyncio.wait_for(go(), 60))
    first_gap = next(i for i, x in enumerate(lines) if x.gap)
    assert lines[first_gap].node == "node2"
    assert any(x.node == "node2" and not x.gap for x in lines[first_gap:])
    assert main(s.cli("stop", "--yes")) == 0


def test_after_stop_hooks_travel_with_the_run(site, capsys, tmp_path):
    """stop without the recipes folder still restores the nodes (issue 13, item 8)."""
    s = site(2)
    s.recipe("toy", toy_recipe() + 'after_stop = ["touch \\"$HOME/restored\\""]\n')
    assert main(s.cli("serve", "toy")) == 0
    elsewhere = ["--config", str(s.config_path), "--recipes", str(tmp_path / "empty")]
    (tmp_path / "empty").mkdir()
    assert main([*elsewhere, "stop", "--yes"]) == 0, capsys.readouterr()
    for node in ("node1", "node2"):
        assert (s.hosts.node(node).home / "restored").exists()


def test_a_run_whose_hooks_are_unknown_is_not_called_restored(site, capsys, tmp_path):
    s = site(1)
    # as left by a sparktui from before the label: no after_stop label, recipe gone
    got = s.hosts.node("node1").run_standin(
        "docker", "run", "-d", "--name", "sparktui-gone", "--label", "sparktui.recipe=gone",
        "--label", "sparktui.run=0123456789abcdef",
        "--label", "sparktui.cluster=test", "--label", "sparktui.node=node1",
        "--label", "sparktui.role=head", "--label", "sparktui.rank=0", "busybox:1",
        "sleep", "600")
    assert got.returncode == 0, got.stderr
    (tmp_path / "empty").mkdir()
    capsys.readouterr()
    assert main(["--config", str(s.config_path), "--recipes", str(tmp_path / "empty"),
                 "stop", "--yes"]) == 1
    captured = capsys.readouterr()
    assert "restore node1 by hand" in captured.out + captured.err
    assert _names(s, "node1") == []  # stopped all the same


def test_logs_of_an_unknown_node_or_nothing_running_are_never_silent(site, capsys):
    """issue 13, item 11: `logs --node nosuch` is bad input; nothing to show is said."""
    s = site(2)
    assert main(s.cli("logs", "--node", "nosuch")) == 2
    assert "nosuch" in capsys.readouterr().err
    assert main(s.cli("logs", "-f")) == 1
    assert "no sparktui workload runs on test" in capsys.readouterr().err
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0
    capsys.readouterr()
    assert main(s.cli("logs", "--recipe", "nosuch")) == 1
    assert "recipe nosuch on test" in capsys.readouterr().err
    assert main(s.cli("logs", "--tail", "3")) == 0
    assert main(s.cli("stop", "--yes")) == 0


def test_ending_supervision_says_a_nodes_docker_did_not_answer(fresh_site, capsys):
    # the supervisor's container cannot be looked for there: a warning naming the node,
    # never a silent "no supervisor container"
    s = fresh_site(2)
    s.hosts.node("node1").docker_down()
    try:
        capsys.readouterr()
        assert main(s.cli("supervise", "--end")) == 0
        out = capsys.readouterr().out
        node1 = [line for line in out.splitlines() if line.startswith("node1")]
        assert any("docker unreachable" in line and "could not look for" in line
                   for line in node1), out
        assert not any("could not look for" in line for line in out.splitlines()
                       if line.startswith("node2"))
    finally:
        s.hosts.node("node1").docker_up()
