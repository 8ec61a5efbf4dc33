"""Exit codes that depend on what the cluster runs (sparktui.exitcodes): nothing serving
or nothing running is an answer, not a failure nor a refusal."""

from __future__ import annotations

from lookalike import Why
from site_support import toy_recipe

from sparktui.cli import main
from sparktui.exitcodes import ExitCode

# A look-alike, not the real vLLM (tests/lookalike.py): exit codes over a serve per case; 2-node
# groups.
LOOKALIKE = (Why.SPEED, Why.MULTI_NODE)


def test_health_deep_with_nothing_serving_exits_0_and_says_so(site, capsys):
    s = site(2)
    assert main(s.cli("health", "--deep")) == ExitCode.OK
    assert "nothing serves" in capsys.readouterr().out


def test_headless_stop_with_nothing_running_exits_0_and_says_nothing_runs(site, capsys):
    s = site(2)
    assert main(s.cli("stop")) == ExitCode.OK  # no --yes, no terminal: nothing to refuse
    out = capsys.readouterr().out
    assert "nothing runs on test: nothing to stop" in out
    for node in ("node1", "node2"):
        assert not any(a[:2] == ["docker", "stop"] for a in s.hosts.recorded_docker(node))


def test_headless_stop_of_a_recipe_that_does_not_run_exits_0_while_another_runs(site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe())
    s.recipe("other", toy_recipe(port=30012))  # known, not running (an unknown one: exit 2)
    assert main(s.cli("serve", "toy")) == ExitCode.OK
    capsys.readouterr()
    try:
        assert main(s.cli("stop", "--recipe", "other")) == ExitCode.OK
        assert "nothing runs on recipe other on test" in capsys.readouterr().out
        assert main(s.cli("stop")) == ExitCode.REFUSED  # toy runs: that needs --yes
    finally:
        assert main(s.cli("stop", "--yes")) == ExitCode.OK


def test_headless_stop_with_a_node_unreachable_is_not_nothing_runs(fresh_site, capsys):
    s = fresh_site(2)
    s.hosts.node("node2").kill()
    assert main(s.cli("stop")) == ExitCode.REFUSED  # node2 may run something
    assert "nothing runs" not in capsys.readouterr().out


def test_a_restore_that_fails_with_warn_stops_and_names_the_nodes_last(site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe(extra='after_stop = [{ command = "echo no-restore >&2; exit 4",'
                                     ' on_failure = "warn" }]'))
    assert main(s.cli("serve", "toy")) == ExitCode.OK
    capsys.readouterr()
    assert main(s.cli("stop", "--yes")) == ExitCode.OK  # the containers are gone
    err = capsys.readouterr().err.splitlines()
    summary = [i for i, line in enumerate(err) if "after_stop did not finish" in line]
    assert summary, err
    assert "node1, node2" in err[summary[0]] and "by hand" in err[summary[0]]
    assert [line for line in err[summary[0] + 1:] if "exited 4" in line and "no-restore"
            in line] != []


def test_a_restore_that_fails_with_abort_fails_the_stop_and_says_where(site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe(extra='after_stop = ["exit 5"]'))
    assert main(s.cli("serve", "toy")) == ExitCode.OK
    capsys.readouterr()
    assert main(s.cli("stop", "--yes")) == ExitCode.FAILED
    err = capsys.readouterr().err
    assert "stop failed on node" in err and "exit 5 exited 5" in err
