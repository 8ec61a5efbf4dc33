"""``stop --recipe`` of a recipe nobody knows (not in the recipes folder, running
nowhere on the cluster) is a typo: refused with exit 2 before a disarm mark is written
for it, whether every node answered or one did not."""

from __future__ import annotations

from lookalike import Why
from site_support import toy_recipe

from sparktui.cli import main
from sparktui.engine.supervise.shell import read_marks
from sparktui.exitcodes import ExitCode

# A look-alike, not the real vLLM (tests/lookalike.py): a serve per case; 2-node group.
LOOKALIKE = (Why.SPEED, Why.MULTI_NODE)


def _marks(s, capsys, node: str) -> str:
    capsys.readouterr()
    assert main(s.cli("exec", "--node", node, "--", "sh", "-c", read_marks())) == ExitCode.OK
    return capsys.readouterr().out


def test_stop_of_an_unknown_recipe_is_refused_and_writes_nothing(fresh_site, capsys):
    s = fresh_site(2)
    s.recipe("toy", toy_recipe())
    assert main(s.cli("stop", "--recipe", "nosuch", "--yes")) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err
    assert "no recipe nosuch in" in err and "none runs on test" in err
    assert "(recipes: toy)" in err
    s.hosts.node("node2").kill()  # it may run anything: before, stop went on and marked
    assert main(s.cli("stop", "--recipe", "nosuch", "--yes")) == ExitCode.BAD_INPUT
    assert "nosuch" not in _marks(s, capsys, "node1")
    # A known recipe is still stopped (here: marked, node2 unreachable).
    assert main(s.cli("stop", "--recipe", "toy", "--yes")) == ExitCode.FAILED
    assert "toy" in _marks(s, capsys, "node1")
