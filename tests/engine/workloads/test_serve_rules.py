"""serve and stop rules: two recipes side by side, image IDs, busy port, hooks."""

from __future__ import annotations

import asyncio
import json
import socket

from lookalike import Why
from site_support import Recorder, toy_recipe

from sparktui.cli import main

# A look-alike, not the real vLLM (tests/lookalike.py): two recipes side by side, busy ports, hooks:
# many starts; 2- and 3-node groups.
LOOKALIKE = (Why.SPEED, Why.MULTI_NODE)


def test_two_recipes_on_one_cluster_are_told_apart(site, capsys):
    s = site(2)
    # shares that fit together (vLLM's default 0.9 each would not: test_multi_recipe.py)
    shares = 'args = ["--gpu-memory-utilization", "0.4"]'
    s.recipe("alpha", toy_recipe(port=30031, nodes=1, extra=shares))
    s.recipe("beta", toy_recipe(port=30032, nodes=1, extra=shares))
    assert main(s.cli("serve", "alpha")) == 0
    assert main(s.cli("serve", "beta")) == 0
    capsys.readouterr()
    assert main(s.cli("health", "--json")) == 0
    data = json.loads(capsys.readouterr().out)
    node1 = next(n for n in data["nodes"] if n["node"] == "node1")
    assert sorted(w["recipe"] for w in node1["workloads"]) == ["alpha", "beta"]
    assert main(s.cli("stop", "--yes", "--recipe", "alpha")) == 0
    names = s.hosts.ssh("node1", "docker ps --format '{{.Names}}'").stdout.split()
    assert names == ["sparktui-beta"]
    assert main(s.cli("stop", "--yes")) == 0


def test_different_image_ids_across_nodes_fail_preflight(site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe())
    s.hosts.node("node2").add_image("vllm:test", variant="pulled-later")  # another ID
    assert main(s.cli("serve", "toy")) == 1
    err = capsys.readouterr().err
    assert "image IDs differ" in err and "node2" in err
    assert not any(a[:2] == ["docker", "run"] for a in s.hosts.recorded_docker("node1"))


def test_busy_port_on_the_head_fails_preflight(site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe(port=30041))
    busy = socket.socket()
    busy.bind((s.hosts.node("node1").addr, 30041))
    busy.listen()
    try:
        assert main(s.cli("serve", "toy")) == 1
    finally:
        busy.close()
    err = capsys.readouterr().err
    assert "port 30041 is already in use" in err and "node1" in err
    assert not any(a[:2] == ["docker", "run"] for a in s.hosts.recorded_docker("node2"))


def test_hooks_run_per_node_scripts_piped_and_after_stop_after_removal(site, tmp_path):
    s = site(2)
    marks = tmp_path / "marks"
    marks.mkdir()
    s.recipe("toy", toy_recipe(extra="\n".join([
        f'before_serve = ["echo before-$SPARKTUI_NODE_NAME >> {marks}/log", '
        '{ script = "stop_dgx_services", on_failure = "warn" }]',
        'after_stop = ["docker ps -a --format {{.Names}} > '
        f'{marks}/after-$SPARKTUI_NODE_NAME"]',
    ])))
    rec = Recorder()

    async def go():
        e = s.engine()
        try:
            served = await e.serve(s.plan("toy"), rec)

            def hooks(name):
                from sparktui.config.discovery import find_recipe
                from sparktui.config.loader import load_recipe
                from sparktui.plan.model import HookStep
                recipe = load_recipe(find_recipe(s.recipes, name)).recipe
                return [HookStep(h.kind, h.run, h.on_failure) for h in recipe.after_stop]

            stopped = await e.stop("test", rec, hooks_for=hooks)
            return served, stopped
        finally:
            await e.close()

    served, stopped = asyncio.run(go())
    assert served.ok and stopped.ok
    assert sorted((marks / "log").read_text().split()) == ["before-node1", "before-node2"]
    scripts = [e for e in rec.events if e.step == "before_serve" and e.state in ("ok", "warn")
               and "stop_dgx_services" in str(e.detail)]
    assert {e.node for e in scripts} == {"node1", "node2"}
    # after_stop ran once per node, after that node's container was gone.
    for node in ("node1", "node2"):
        assert (marks / f"after-{node}").read_text().strip() == ""


def test_stop_with_an_unreachable_worker_still_stops_the_rest_and_says_so(fresh_site, capsys):
    s = fresh_site(3)
    s.recipe("toy", toy_recipe(nodes=3))
    assert main(s.cli("serve", "toy")) == 0
    s.hosts.node("node3").kill()
    capsys.readouterr()
    assert main(s.cli("stop", "--yes")) == 1
    captured = capsys.readouterr()
    assert "node3" in captured.err and "unreachable" in captured.err
    for node in ("node1", "node2"):
        assert s.hosts.ssh(node, "docker ps -a --format '{{.Names}}'").stdout.split() == []
