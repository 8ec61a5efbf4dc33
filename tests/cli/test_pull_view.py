"""What ``sparktui pull`` shows: on a terminal a bar per node and one for all nodes (bytes
of the total), a node's words shown as written (no markup, no control character); with
``--json`` one object per line."""

from __future__ import annotations

import json

from sparktui.cli.pull_view import PullView
from sparktui.engine.api import Progress, PullKind, Step, StepState, Transfer

MIB = 1 << 20


def test_a_terminal_gets_a_bar_per_node_and_one_for_all(capsys):
    with PullView(json=False, terminal=True) as view:
        view.step(Progress(Step.PULL_IMAGE, "node2", StepState.FAILED, "[bold]x\x1b[31m"))
        view.transfer(Transfer(PullKind.IMAGE, "node1", "registry", 10 * MIB, 100 * MIB))
        view.transfer(Transfer(PullKind.IMAGE, "node2", "node1", 50 * MIB, 100 * MIB))
    out = capsys.readouterr().out
    assert "[bold]x\\x1b[31m" in out and "\x1b[31m" not in out, out
    rows = [line for line in out.splitlines() if "MiB" in line]
    assert rows[0].startswith("all nodes") and "60.0/200.0 MiB" in rows[0], rows
    assert any(r.startswith("node1 from registry") and "10.0/100.0 MiB" in r for r in rows)
    assert any(r.startswith("node2 from node1") and "50.0/100.0 MiB" in r for r in rows)


def test_json_is_one_object_per_line(capsys):
    with PullView(json=True, terminal=True) as view:
        view.step(Progress(Step.PULL_IMAGE, None, StepState.STARTED, "img"))
        view.transfer(Transfer(PullKind.IMAGE, "node1", "registry", 1, 2))
        view.result({"result": "pulled"})
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines == [{"step": "pull_image", "node": None, "state": "started", "detail": "img"},
                     {"kind": "image", "node": "node1", "source": "registry", "done": 1,
                      "total": 2},
                     {"result": "pulled"}]


def test_the_end_line_names_what_was_pulled() -> None:
    """Both, the image alone or the model alone: each said with its own words."""
    from plan_support import EXAMPLE_CONFIG, RECIPES

    from sparktui.cli.pull_cmd import pulled_line
    from sparktui.config.loader import load_config, load_recipe
    from sparktui.engine.api import PullParts
    from sparktui.plan.build import build_plan

    plan = build_plan(load_config(EXAMPLE_CONFIG),
                      load_recipe(RECIPES / "qwen3-235b-2node" / "recipe.toml"), None)
    image, model = plan.image, plan.model
    assert pulled_line(plan, PullParts()) == \
        f"{image} and {model} are on every node of 2nodes"
    assert pulled_line(plan, PullParts(model=False)) == f"{image} is on every node of 2nodes"
    assert pulled_line(plan, PullParts(image=False)) == f"{model} is on every node of 2nodes"
