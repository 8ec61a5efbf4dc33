"""With a node's docker down, what runs there is unknown, never "nothing" (#29 item 4):
``health --deep``, ``logs`` and serve's preflight say "docker on NODE does not answer"
and exit 1. A real dockerd taken down (as in test_docker_faults)."""

from __future__ import annotations

import asyncio
import json

from lookalike import Why
from site_support import toy_recipe

from sparktui.cli import main
from sparktui.i18n import install

# A look-alike, not the real vLLM (tests/lookalike.py): a dockerd taken down under a serve per test;
# 2-node groups.
LOOKALIKE = (Why.SPEED, Why.MULTI_NODE)


def test_health_deep_beside_a_dead_docker_says_unknown_not_nothing_serves(fresh_site,
                                                                         capsys):
    s = fresh_site(1)
    s.hosts.node("node1").docker_down()
    try:
        capsys.readouterr()
        assert main(s.cli("health", "--deep")) == 1
        out = capsys.readouterr().out
        assert "nothing serves" not in out, out
        assert "  deep check: unknown: docker on node1 does not answer" in out.splitlines()
        assert main(s.cli("health", "--deep", "--json")) == 1
        deep = json.loads(capsys.readouterr().out)["deep"]
        assert deep["ok"] is False and deep["unknown"] is True
        assert deep["error"] == {"code": "status_said.unknown", "params": {"why": [
            {"code": "status_said.docker_silent", "params": {"node": "node1"}}]}}
    finally:
        s.hosts.node("node1").docker_up()


def test_logs_beside_a_dead_docker_say_unknown(fresh_site, capsys):
    s = fresh_site(2)
    s.hosts.node("node2").docker_down()
    try:
        capsys.readouterr()
        assert main(s.cli("logs")) == 1
        err = capsys.readouterr().err
        assert err.strip() == "no logs to show: unknown: docker on node2 does not answer"
        assert main(s.cli("logs", "--node", "node1")) == 1  # node1 said: nothing runs
        err = capsys.readouterr().err
        assert "unknown" not in err and "no sparktui workload runs on test (node1)" in err
    finally:
        s.hosts.node("node2").docker_up()


def test_serve_beside_a_dead_docker_never_says_the_image_is_not_present(fresh_site, capsys):
    s = fresh_site(2)
    s.recipe("toy", toy_recipe())
    s.hosts.node("node2").docker_down()
    try:
        capsys.readouterr()
        assert main(s.cli("serve", "toy")) == 1
        err = capsys.readouterr().err
        assert "not present" not in err, err
        assert ("whether image vllm:test is present is unknown: docker on node2 "
                "does not answer (Cannot connect to the Docker daemon") in err, err
        assert s.hosts.node("node1").docker("ps", "-aq").stdout == ""  # nothing started
    finally:
        s.hosts.node("node2").docker_up()


def test_logs_of_what_runs_beside_a_dead_docker_fail_and_say_what_is_missing(fresh_site,
                                                                             capsys):
    """node1's logs are shown; node2's are unknown: the answer is not whole (exit 1)."""
    s = fresh_site(2)
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0
    s.hosts.node("node2").docker_down()
    try:
        capsys.readouterr()
        assert main(s.cli("logs", "--tail", "3")) == 1
        captured = capsys.readouterr()
        assert captured.out.startswith("node2 | docker unreachable"), captured.out
        assert "node1 | " in captured.out
        assert captured.err.strip() == ("not every log was shown: unknown: docker on node2 "
                                        "does not answer"), captured.err
    finally:
        s.hosts.node("node2").docker_up()


def test_stop_and_restart_headers_beside_a_dead_docker_say_unknown(fresh_site, capsys):
    """Already true since b4f942c (print_health): proven for the two commands too."""
    s = fresh_site(1)
    s.recipe("one", toy_recipe(nodes=1))
    s.hosts.node("node1").docker_down()
    try:
        for argv in (("stop",), ("restart", "one")):
            capsys.readouterr()
            assert main(s.cli(*argv)) != 0  # no terminal to confirm on, nor a docker
            out = capsys.readouterr().out
            assert out.splitlines()[0] == ("cluster test: unknown: docker on node1 does "
                                           "not answer"), (argv, out)
    finally:
        s.hosts.node("node1").docker_up()


def test_a_log_gap_says_why_as_a_code_and_logs_put_it_in_words(fresh_site, capsys):
    """The engine's gap carries why the node's logs cannot come (#31), as data; ``sparktui
    logs`` says it in the user's language, the line it has always printed."""
    s = fresh_site(2)
    s.hosts.node("node2").docker_down()

    async def gaps() -> list:
        engine = s.engine()
        try:
            return [b async for b in engine.log_batches("test", follow=False) if b.gap]
        finally:
            await engine.close()
    try:
        found = asyncio.run(gaps())
        assert [(b.node, b.lines) for b in found] == [("node2", [])], found
        why = found[0].why.as_json()
        assert why["code"] == "layout.colon" and why["params"]["head"] == {
            "code": "reason.docker_unreachable", "params": {}}, why
        for lang, words in (("ru", "node2 | docker недоступен: "),
                            ("en", "node2 | docker unreachable: ")):
            capsys.readouterr()
            assert main(["--lang", lang, *s.cli("logs")]) == 1
            assert capsys.readouterr().out.startswith(words), lang
    finally:
        s.hosts.node("node2").docker_up()
        install("en")
