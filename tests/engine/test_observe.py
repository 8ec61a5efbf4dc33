"""health, logs, exec and doctor against the test hosts, faults included."""

from __future__ import annotations

import asyncio
import json
import subprocess

from lookalike import Why
from polling import eventually
from site_support import Recorder, toy_recipe

from sparktui.cli import main

# A look-alike, not the real vLLM (tests/lookalike.py): set figures, nvidia-smi failing, a hung
# node; up to 3-node groups.
LOOKALIKE = (Why.FIGURES, Why.GPU, Why.FAULT, Why.MULTI_NODE)


def _serve(s, **kw) -> None:
    s.recipe("toy", toy_recipe(**kw))
    assert main(s.cli("serve", "toy")) == 0


def test_health_json_reports_engine_figures_through_ssh(site, capsys):
    s = site(2)
    _serve(s)
    s.hosts.node("node1").set_engine(running=3, waiting=2, kv=0.5)
    capsys.readouterr()
    assert main(s.cli("health", "--json")) == 0
    data = json.loads(capsys.readouterr().out)
    head = next(n for n in data["nodes"] if n["node"] == "node1")
    assert head["engine"]["running"] == 3 and head["engine"]["waiting"] == 2
    assert head["engine"]["kv_cache"] == 0.5
    assert data["serving"] is True
    assert [w["role"] for n in data["nodes"] for w in n["workloads"]] == ["head", "worker"]
    assert main(s.cli("stop", "--yes")) == 0


def test_health_with_a_hung_node_times_out_that_row_only(fresh_site):
    """health ends at its own deadline, not at the hung node's (far longer) connect
    timeout: the row's error is health's "timeout (8 sec)", where the connect timeout
    would have said "no SSH answer in 120 sec". The error says which wait ended, so no
    clock is read here (a loaded machine makes any pass slower)."""
    s = fresh_site(3, top="health_timeout_seconds = 8\nconnect_timeout_seconds = 120")
    hung = s.hosts.node("node2")
    hung.hang()
    try:
        async def go():
            e = s.engine()
            try:
                return await e.health("test")
            finally:
                await e.close()
        health = asyncio.run(go())
    finally:
        hung.resume()
    rows = {n.node: n for n in health.nodes}
    assert not rows["node2"].reachable and str(rows["node2"].error or "") == "timeout (8 sec)"
    assert rows["node1"].reachable and rows["node3"].reachable


def test_logs_with_a_node_that_does_not_answer_never_says_nothing_runs(fresh_site, capsys):
    s = fresh_site(2)
    s.hosts.node("node2").kill()
    capsys.readouterr()
    assert main(s.cli("logs")) == 1
    captured = capsys.readouterr()
    assert "node2" in captured.out and "unreachable" in captured.out
    assert "no logs to show: unknown: node2 does not answer" in captured.err
    assert "no sparktui workload runs" not in captured.err


def test_health_with_a_refusing_node_says_unreachable(fresh_site, capsys):
    s = fresh_site(2)
    s.hosts.node("node2").kill()
    assert main(s.cli("health")) == 1
    out = capsys.readouterr().out
    assert "node2" in out and "unreachable" in out


def test_changed_host_key_is_refused_by_name_and_others_go_on(fresh_site, capsys):
    s = fresh_site(2)
    s.hosts.node("node1").rotate_host_key()
    assert main(s.cli("health")) == 1
    out = capsys.readouterr().out
    assert "node1" in out and "host key not trusted" in out
    assert "node2" in out and "idle" in out
    assert main(s.cli("init-host-keys")) == 1
    captured = capsys.readouterr()
    assert "HOST KEY CHANGED" in captured.err and "node1" in captured.err
    assert "node2: unchanged" in captured.out
    # The recorded key was not replaced: still refused.
    assert main(s.cli("health")) == 1


def test_logs_from_all_nodes_are_tagged_and_survive_a_cut_stream(site):
    s = site(2)
    _serve(s)

    async def go():
        e = s.engine()
        lines = []
        stream = e.logs("test", tail=5, follow=True)
        cut = False
        try:
            async for line in stream:
                lines.append(line)
                if not cut and sum(1 for x in lines if x.node == "node2") >= 2:
                    cut = True
                    # The test hosts' pkill only sees that node's processes.
                    s.hosts.ssh("node2", "pkill -f '[d]ocker logs'; true")
                if cut and any(x.gap for x in lines) and sum(
                        1 for x in lines[lines.index(next(x for x in lines if x.gap)):]
                        if x.node == "node2" and not x.gap) >= 1:
                    break
        finally:
            await stream.aclose()
            await e.close()
        return lines

    lines = asyncio.run(asyncio.wait_for(go(), 30))
    assert {x.node for x in lines if not x.gap} == {"node1", "node2"}
    gaps = [x for x in lines if x.gap]
    assert gaps and gaps[0].node == "node2"
    for node in ("node1", "node2"):
        eventually(lambda n=node: s.hosts.ssh(n, "pgrep -af '[d]ocker logs' || true")
                   .stdout.strip() == "", 15, f"no docker logs left on {node}")
    assert main(s.cli("stop", "--yes")) == 0


def test_cli_logs_without_follow_prints_tagged_tail(site, capsys):
    s = site(2)
    _serve(s)
    capsys.readouterr()
    assert main(s.cli("logs", "--tail", "3")) == 0
    out = capsys.readouterr().out.splitlines()
    assert any(line.startswith("node1 | ") for line in out)
    assert any(line.startswith("node2 | ") for line in out)
    assert main(s.cli("stop", "--yes")) == 0


def test_sixteen_log_streams_plus_health_and_exec_on_one_node(site):
    """OpenSSH's MaxSessions 10 must not starve anything: channels spread over connections."""
    s = site(1)
    _serve(s, nodes=1)

    async def go():
        e = s.engine()
        try:
            streams = [e.logs("test", tail=1, follow=True) for _ in range(16)]
            firsts = await asyncio.gather(*(st.__anext__() for st in streams))
            health = await e.health("test")
            results = await e.exec("test", "echo alive")
            for st in streams:
                await st.aclose()
            return firsts, health, results
        finally:
            await e.close()

    firsts, health, results = asyncio.run(asyncio.wait_for(go(), 60))
    assert len(firsts) == 16 and all(f.node == "node1" for f in firsts)
    assert health.nodes[0].reachable and health.serving
    assert results[0].exit_code == 0 and results[0].stdout.strip() == "alive"
    assert main(s.cli("stop", "--yes")) == 0


def test_exec_alias_and_command_grouped_per_node(site, capsys):
    s = site(2, extra_toml='[exec_aliases]\nwho = "echo $SPARKTUI_NODE_NAME"\n')
    assert main(s.cli("exec", "who")) == 0
    out = capsys.readouterr().out
    assert "== node1 (exit 0)\nnode1\n" in out and "== node2 (exit 0)\nnode2\n" in out
    assert main(s.cli("exec", "--node", "node2", "--", "sh", "-c", "exit 4")) == 1
    assert "== node2 (exit 4)" in capsys.readouterr().out
    assert main(s.cli("exec", "nope")) == 2
    assert "exec_aliases" in capsys.readouterr().err


def test_doctor_reports_per_node_checks(site, capsys):
    s = site(2)
    s.hosts.node("node2").set_gpu(fail=True)
    code = main(s.cli("doctor", "--json", "--image", "vllm:test"))
    checks = json.loads(capsys.readouterr().out)
    assert code == 1
    by = {(c["node"], c["name"]): c for c in checks}
    assert by[("node1", "gpu")]["status"] == "pass"
    assert by[("node2", "gpu")]["status"] == "fail" and by[("node2", "gpu")]["hint"]
    assert by[("node1", "docker")]["status"] == "pass"
    assert by[("node1", "fabric ip")]["status"] == "pass"
    assert by[("*", "image vllm:test")]["status"] == "pass"
    assert {c["name"] for c in checks} >= {"ssh", "memory", "disk", "clock", "nic lo"}


def test_local_cluster_runs_through_a_subprocess(tmp_path):
    out = subprocess.run(["sparktui", "exec", "--", "echo", "here"], capture_output=True,
                         text=True, cwd=tmp_path, timeout=30,
                         env={"PATH": "/usr/bin:/bin:" + _venv_bin(), "HOME": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    assert "here" in out.stdout


def _venv_bin() -> str:
    import os
    import sys
    return os.path.dirname(sys.executable)


_ = Recorder


def test_concurrent_callers_share_connections(site):
    """Twenty commands at once on a cold node open ceil(20/8) connections, not twenty."""
    s = site(1)

    async def go():
        e = s.engine()
        try:
            node = e.cluster("test").nodes[0]
            transport = e.transport(node)
            results = await asyncio.gather(*(transport.run("sleep 0.3; echo ok")
                                             for _ in range(20)))
            return results, len(transport._conns)
        finally:
            await e.close()

    results, connections = asyncio.run(go())
    assert all(r.stdout.strip() == "ok" for r in results)
    assert connections == 3
