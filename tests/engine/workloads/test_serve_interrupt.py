"""Ctrl+C during ``serve`` (a real SIGINT to ``python -m sparktui serve``): what this serve
started is removed, or, kept (``--keep-on-failure``) or left by a second Ctrl+C, every
container left is named with the command that stops it. A stop that waits out an
engine's grace period says so."""

from __future__ import annotations

import asyncio
import signal
import subprocess

from hosts.cluster import STOP_GRACE
from lookalike import Why
from polling import eventually
from site_support import Lines, Recorder, interrupt, sparktui_process, toy_recipe

from sparktui.cli import main
from sparktui.config.loader import load_config
from sparktui.engine.api import Step, StepState
from sparktui.tui.viewmodel.runs import progress_rows

# A look-alike, not the real vLLM (tests/lookalike.py): never ready, ignores SIGTERM; 2-node groups.
LOOKALIKE = (Why.FAULT, Why.LONG_LOAD, Why.MULTI_NODE)

NEVER_READY = 'STANDIN_READY_AFTER = "36000"'
IGNORES_TERM = 'STANDIN_ON_SIGTERM = "ignore"'
NODES = ("node1", "node2")
# The serve must still be waiting when the test's Ctrl+C comes, however loaded the machine:
# a ready timeout the test cannot reach, so the interrupt, not the clock, ends the serve.
WAITS_LONG = "ready_timeout_seconds = 3600"


def _with_grace(s, seconds: int):
    """The site with ``stop_grace_seconds`` set (the test hosts' config has its own)."""
    text = s.config_path.read_text()
    assert f"stop_grace_seconds = {STOP_GRACE}\n" in text
    s.config_path.write_text(text.replace(f"stop_grace_seconds = {STOP_GRACE}\n",
                                          f"stop_grace_seconds = {seconds}\n"))
    s.loaded = load_config(s.config_path)
    return s


def _running_everywhere(s, name: str) -> bool:
    for node in NODES:
        found = s.hosts.node(node).containers().get(name)
        if not found or found["State"]["Status"] != "running":
            return False
    return True


def _serving_started(s, *extra: str) -> tuple[subprocess.Popen[str], Lines]:
    proc = sparktui_process(*s.cli("serve", "slow", *extra))
    lines = Lines(proc)
    eventually(lambda: _running_everywhere(s, "sparktui-slow") or proc.poll() is not None,
               60, "both containers running", explain=lines.text)
    assert proc.poll() is None, lines.text()
    return proc, lines


def test_ctrl_c_removes_what_the_serve_started(site):
    s = site(2, top=WAITS_LONG)
    s.recipe("slow", toy_recipe(env=NEVER_READY))
    proc, lines = _serving_started(s)
    try:
        code, err = interrupt(proc)
        assert lines.text().count("sparktui-slow\n") >= 2  # the rollback rows name them
    finally:
        if proc.poll() is None:
            proc.kill()
    assert code == 130, err
    for node in NODES:
        assert s.hosts.node(node).containers() == {}, node
    assert "interrupted" in err and "left running" not in err and "Traceback" not in err


def test_ctrl_c_with_keep_on_failure_names_every_container_and_its_stop(site):
    s = site(2, top=WAITS_LONG)
    s.recipe("slow", toy_recipe(env=NEVER_READY))
    proc, _lines = _serving_started(s, "--keep-on-failure")
    try:
        code, err = interrupt(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert code == 130, err
    assert "sparktui stop --cluster test --recipe slow" in err
    for node in NODES:
        assert "sparktui-slow" in s.hosts.node(node).containers()
        assert f"sparktui-slow on {node} (on the node: docker rm -f sparktui-slow)" in err
    assert main(s.cli("stop", "--yes")) == 0


def test_a_second_ctrl_c_leaves_the_rest_and_names_it(site):
    s = _with_grace(site(2, top=WAITS_LONG), 30)
    s.recipe("slow", toy_recipe(env=NEVER_READY + "\n" + IGNORES_TERM))
    proc, lines = _serving_started(s)
    try:
        proc.send_signal(signal.SIGINT)
        # The rollback waits out the grace period of an engine that ignores SIGTERM,
        # and says so; the second Ctrl+C comes while it waits.
        waited = "waiting up to 30 sec for sparktui-slow to exit after SIGTERM, then SIGKILL"
        eventually(lambda: lines.text().count(waited) == 2, 60, "the rollback's wait said",
                   explain=lines.text)
        code, err = interrupt(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert code == 130, err
    assert "sparktui stop --cluster test --recipe slow" in err
    for node in NODES:
        assert f"sparktui-slow on {node} (on the node: docker rm -f sparktui-slow)" in err
        assert "sparktui-slow" in s.hosts.node(node).containers()
        s.hosts.node(node).docker("rm", "-f", "sparktui-slow")


def test_a_stop_that_waits_out_the_grace_period_says_what_it_waits_for(site, capsys):
    s = _with_grace(site(2), 1)
    s.recipe("toy", toy_recipe(env=IGNORES_TERM))
    assert main(s.cli("serve", "toy")) == 0
    capsys.readouterr()
    rec = Recorder()

    async def stop() -> None:
        engine = s.engine()
        try:
            assert (await engine.stop("test", rec)).ok
        finally:
            await engine.close()

    asyncio.run(stop())
    waited = "waiting up to 1 sec for sparktui-toy to exit after SIGTERM, then SIGKILL"
    waits = [i for i, e in enumerate(rec.events)
             if e.step == Step.STOP and e.state == StepState.WAITING]
    assert sorted(rec.events[i].node for i in waits) == list(NODES)
    # The dashboard's progress view shows it on the node's stop row while it waits.
    rows = progress_rows(rec.events[:waits[-1] + 1])
    assert [str(r.detail) for r in rows if r.step == "stop" and r.node == rec.events[waits[-1]].node
            ] == [waited]
    assert all(str(e.detail) == waited for e in (rec.events[i] for i in waits))
    # And the CLI prints it.
    assert main(s.cli("serve", "toy")) == 0
    capsys.readouterr()
    assert main(s.cli("stop", "--yes")) == 0
    assert capsys.readouterr().out.count(waited) == 2


def test_ctrl_c_during_a_stop_names_what_still_runs_and_how_to_stop_it(site):
    """The stop waits out an engine that ignores SIGTERM; Ctrl+C then ends the stop, and
    its last words name every container it had not removed (it used to exit 130 without
    a word over two running engines)."""
    s = _with_grace(site(2), 30)
    s.recipe("toy", toy_recipe(env=IGNORES_TERM))
    assert main(s.cli("serve", "toy")) == 0
    proc = sparktui_process(*s.cli("stop", "--yes"))
    lines = Lines(proc)
    try:
        waited = "waiting up to 30 sec for sparktui-toy to exit after SIGTERM, then SIGKILL"
        eventually(lambda: lines.text().count(waited) == 2, 60, "the stop's wait said",
                   explain=lines.text)
        code, err = interrupt(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert code == 130, err
    assert "Traceback" not in err
    assert "interrupted: still on the cluster; stop it with: sparktui stop --cluster test" in err
    for node in NODES:
        assert f"sparktui-toy on {node}" in err, err
        assert "sparktui-toy" in s.hosts.node(node).containers()
    assert main(s.cli("stop", "--yes")) == 0
