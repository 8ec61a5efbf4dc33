"""A node that lies to the CLI, on the real test hosts: what it says reaches the terminal
only through the one filter (visible.terminal_safe), and every read of it is bounded
(HTTP answers, command output, a log line without its newline)."""

from __future__ import annotations

import json

from hostile_support import (
    HOSTILE,
    hostile_mode,
    hostile_recipe,
    printf_command,
    raw_controls,
    run_sparktui,
)
from lookalike import Why

# A look-alike, not the real vLLM (tests/lookalike.py): the engine answers control bytes and endless
# lines on purpose.
LOOKALIKE = Why.FAULT

PEAK_RSS_MB = 150


def _serve(s, extra: str = "", env: str = "") -> None:
    s.recipe("bad", hostile_recipe(extra=extra, env=env))
    served = run_sparktui(*s.cli("serve", "bad"))
    assert served.code == 0, served.out + served.err
    assert "exited 3" in served.out + served.err or not extra
    assert raw_controls(served.out + served.err) == [], served.out + served.err


def test_no_control_a_node_says_reaches_the_terminal_raw(site):
    # models, metrics and a log line from the head's engine; a planted container's labels;
    # the stderr of a hook at serve and at stop: every kind of node text the CLI prints
    s = site(1)
    hook = json.dumps(printf_command(HOSTILE) + "; exit 3")
    _serve(s, f'before_serve = [{{ command = {hook}, on_failure = "warn" }}]\n'
              f'after_stop = [{{ command = {hook}, on_failure = "warn" }}]\n')
    s.hosts.node("node1").docker(
        "run", "-d", "--name", "planted", "--label", "sparktui.recipe=r" + HOSTILE,
        "--label", "sparktui.role=head" + HOSTILE, "--label", "sparktui.node=node1",
        "vllm:test", "sleep", "600")
    runs = {"health": run_sparktui(*s.cli("health")),
            "logs": run_sparktui(*s.cli("logs", "--tail", "20")),
            "stop": run_sparktui(*s.cli("stop", "--yes"))}
    assert "org/toy\\x1b]0;retitled" in runs["health"].out, runs["health"].out
    assert "hostile engine" in runs["logs"].out and "\\x9b31m" in runs["logs"].out
    assert "exited 3" in runs["stop"].out + runs["stop"].err
    for name, run in runs.items():
        assert raw_controls(run.out + run.err) == [], (name, run.out, run.err)


def test_health_against_an_endless_answer_is_that_nodes_error(site):
    s = site(1, top="health_timeout_seconds = 8")
    _serve(s)
    hostile_mode(s.hosts.node("node1"), "endless")
    run = run_sparktui(*s.cli("health"))
    assert run.code == 0, run.err
    row = next(line for line in run.out.splitlines() if line.strip().startswith("node1:"))
    assert "answer too large" in row, run.out
    assert "Traceback" not in run.err
    assert run.peak_rss_mb < PEAK_RSS_MB, run.peak_rss_mb
    hostile_mode(s.hosts.node("node1"), "names")
    assert run_sparktui(*s.cli("stop", "--yes")).code == 0


def test_a_100_mb_answer_is_refused_with_bounded_memory(site):
    s = site(1, top="health_timeout_seconds = 30")
    _serve(s)
    hostile_mode(s.hosts.node("node1"), "huge")
    run = run_sparktui(*s.cli("health", "--json"))
    assert run.code == 0, run.err
    assert '"code": "http_said.too_large"' in run.out  # the JSON holds the code, no words
    assert run.peak_rss_mb < PEAK_RSS_MB, run.peak_rss_mb
    hostile_mode(s.hosts.node("node1"), "names")
    assert run_sparktui(*s.cli("stop", "--yes")).code == 0


def test_a_command_printing_200_mb_is_output_too_large(site):
    s = site(2, top="command_timeout_seconds = 60")
    run = run_sparktui(*s.cli("exec", "--", "sh", "-c",
                              "head -c 200000000 /dev/zero | tr '\\0' x; echo done"))
    assert "output too large" in run.out + run.err, run.out[-500:] + run.err[-500:]
    assert "Traceback" not in run.err
    assert run.peak_rss_mb < PEAK_RSS_MB, run.peak_rss_mb
    assert len(run.out) < 1 << 20


def test_a_log_line_of_10_mb_without_newline_is_cut(site):
    s = site(1)
    _serve(s, env='HOSTILE_LONG_LINE = "10000000"')
    run = run_sparktui(*s.cli("logs", "--tail", "5000"))
    lines = run.out.splitlines()
    assert any("a line of its own" in line for line in lines), run.out[:300]
    cut = [line for line in lines if "y" * 100 in line]
    assert len(cut) == 1 and cut[0].endswith(" …✂"), [len(line) for line in cut]
    assert len(cut[0]) < 20_000
    assert run.peak_rss_mb < PEAK_RSS_MB, run.peak_rss_mb
    assert run_sparktui(*s.cli("stop", "--yes")).code == 0
