"""A lying node can only ever affect itself, and nothing it says reaches the terminal raw
(issue 28): hypothesis writes what node2 answers (its docker listing through the CLI or
the API, labels, the engine's /health, /v1/models and /metrics, log bytes, huge or
endless answers, none at all) and ``python -m sparktui`` runs ``health``, ``health
--json``, ``logs`` and ``stop --yes`` on a real 2-node cluster whose node1 is honest.

Each run ends with 0 or 1, never a traceback; stdout and stderr hold no control
character but newline and tab; its peak RSS stays under 200 MB; node1 is asked nothing
beyond what the same command asks it when node2 says nothing (no command of node2's
labels, no stop of a name node2 listed); and ``stop --yes`` stops node1's engine
whatever node2 says, and leaves alone the container of another cluster beside it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from lookalike import Why
from lying_strategies import (
    CRAFTED_JSON,
    ENDLESS_HTTP,
    NAMES_NO_NODE,
    PLANTS_ON_NODE1,
    SPEAKS_CONTROLS,
    scenes,
)
from lying_support import EXAMPLES, PLANTED_MARK, VICTIM, Lab, Ran, Scene, run_cli

# A look-alike, not the real vLLM (tests/lookalike.py): node2's engine lies (hypothesis); node1's
# honest engine per scene.
LOOKALIKE = (Why.FAULT, Why.SPEED)

LYING = settings(max_examples=EXAMPLES, deadline=None, database=None,
                 phases=[Phase.explicit, Phase.generate, Phase.shrink],
                 suppress_health_check=[HealthCheck.function_scoped_fixture,
                                        HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture
def lab(fresh_cluster, tmp_path: Path):
    bench = Lab(fresh_cluster(2), tmp_path)
    bench.serve_honest()
    bench.plant_victim()
    yield bench
    bench.close()


def _assert_only_itself(lab: Lab, ran: Ran, allowed: set[str]) -> None:
    problems = ran.problems()
    foreign = lab.foreign_commands(allowed)
    if foreign:
        problems.append(f"node1 was asked {foreign}")
    if PLANTED_MARK.exists():
        problems.append("the planted after_stop ran here")
    assert not problems, f"{' '.join(ran.args[-3:])}:\n" + "\n".join(problems)


@LYING
@example(scene=SPEAKS_CONTROLS, as_json=False)
@example(scene=ENDLESS_HTTP, as_json=True)
@given(scene=scenes(), as_json=st.booleans())
def test_health_of_a_lying_node(lab: Lab, scene: Scene, as_json: bool) -> None:
    args = ("health", "--json") if as_json else ("health",)
    allowed = lab.baseline(*args)
    lab.tell(scene)
    _assert_only_itself(lab, run_cli(*lab.cli(*args)), allowed)


@LYING
@example(scene=SPEAKS_CONTROLS)
@example(scene=PLANTS_ON_NODE1)
@given(scene=scenes())
def test_logs_of_a_lying_node(lab: Lab, scene: Scene) -> None:
    args = ("logs", "--tail", "5")
    allowed = lab.baseline(*args)
    lab.tell(scene)
    _assert_only_itself(lab, run_cli(*lab.cli(*args)), allowed)


@LYING
@example(scene=PLANTS_ON_NODE1)
@example(scene=NAMES_NO_NODE)
@example(scene=CRAFTED_JSON)
@given(scene=scenes())
def test_stop_beside_a_lying_node(lab: Lab, scene: Scene) -> None:
    args = ("stop", "--yes")
    allowed = lab.baseline(*args)
    lab.serve_honest()  # the baseline stopped it
    lab.honest.forget()
    lab.tell(scene)
    ran = run_cli(*lab.cli(*args))
    _assert_only_itself(lab, ran, allowed)
    left = lab.node1.containers()
    assert lab.honest_container not in left, (
        f"node1's engine still runs after stop --yes:\n{ran.out.decode(errors='replace')}")
    assert left.get(VICTIM, {}).get("State", {}).get("Status") == "running", \
        "stop touched another cluster's container"
