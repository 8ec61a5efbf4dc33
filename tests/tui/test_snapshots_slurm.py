"""Snapshots of a Slurm cluster's jobs in the clusters pane: the operator's running job
with its time left, a colleague's pending one with Slurm's reason and its user, and a
Slurm that could not be asked, at 80x24 and 120x40. Deterministic: the example config
and a constructed health. Update with:
python -m pytest -n 0 tests/tui/test_snapshots_slurm.py --snapshot-update
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from plan_support import EXAMPLE_CONFIG, RECIPES

from sparktui.config.loader import load_config, load_recipe
from sparktui.engine.slurm.jobs import Job, SlurmStatus
from sparktui.engine.status import ClusterHealth, NodeHealth
from sparktui.plan.build import build_plan
from sparktui.plan.render import render
from sparktui.tui.screens.confirm import ConfirmRequest, ConfirmScreen, verdict
from sparktui.tui.screens.serve_plan import ServePlanScreen
from sparktui.tui.widgets.clusters import ClustersPane, RefKind, lines_of
from tui.support import NOW, make_app, posting, serving_health
from tui.test_snapshots_actions import Host

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
SLURM_EXAMPLE = EXAMPLE_CONFIG.with_name("slurm.toml")
JOBS = [Job("41", "RUNNING", "None", "23:59:10", "ops", ("spark1", "spark2"),
            "sparktui-qwen3-235b"),
        Job("42", "PENDING", "Resources", "1-00:00:00", "alice", (), "sparktui-[b]other")]


def _slurm(status: SlurmStatus | None) -> ClusterHealth:
    return replace(serving_health(), slurm=status)


@pytest.mark.parametrize("size", SIZES)
def test_the_clusters_jobs_in_the_clusters_pane(snap_compare, size: str):
    assert snap_compare(make_app(), terminal_size=SIZES[size],
                        run_before=posting(_slurm(SlurmStatus("spark", "ops", JOBS))))


@pytest.mark.parametrize("size", SIZES)
def test_a_slurm_that_does_not_answer(snap_compare, size: str):
    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=posting(
        _slurm(SlurmStatus("spark", error="login1: squeue: Connection refused"))))


async def test_the_job_lines_follow_the_health_and_leave_with_it():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await posting(_slurm(SlurmStatus("spark", "ops", JOBS)))(pilot)
        pane: ClustersPane = app.dashboard.clusters_pane  # type: ignore[attr-defined]
        branch = pane.cluster_tree.root.children[0]

        def lines() -> list[str]:
            return [str(c.label) for c in lines_of(branch, RefKind.JOB)]

        assert lines() == ["⧗ job 41 RUNNING 23:59:10", "⧗ job 42 PENDING Resources (alice)"]
        await posting(_slurm(SlurmStatus("spark", "ops", JOBS[:1])))(pilot)
        assert lines() == ["⧗ job 41 RUNNING 23:59:10"]
        await posting(serving_health())(pilot)
        assert lines() == []


def _stop_of(health: ClusterHealth) -> Host:
    async def check() -> ClusterHealth:
        return health
    return Host(ConfirmScreen(ConfirmRequest(
        title="Stop cluster 2nodes", verb="Stop", cluster="2nodes",
        what="Cancels your serve jobs of 2nodes, then removes every sparktui container.",
        check=check)))


async def _settle(pilot) -> None:
    await pilot.pause(0.2)


@pytest.mark.parametrize("size", SIZES)
def test_a_stop_confirmation_shows_the_jobs_it_cancels_and_the_one_it_leaves(
        snap_compare, size: str):
    """The fresh check's jobs: the operator's own (a stop cancels it) and a colleague's,
    marked as never touched; Slurm's words (a name with markup) shown as written."""
    health = _slurm(SlurmStatus("spark", "ops", JOBS))
    assert snap_compare(_stop_of(health), terminal_size=SIZES[size], run_before=_settle)


OWN_PENDING = Job("43", "PENDING", "Resources", "1:00:00", "ops", (),
                  "sparktui-qwen3-235b-2node")


def _idle(*jobs: Job) -> ClusterHealth:
    """Both nodes answer and run nothing; Slurm lists ``jobs``."""
    return ClusterHealth("2nodes", [NodeHealth("spark1", True, latency_ms=1.2),
                                    NodeHealth("spark2", True, latency_ms=1.4)],
                         NOW - 4, slurm=SlurmStatus("spark", "ops", list(jobs)))


@pytest.mark.parametrize("size", SIZES)
def test_a_stop_confirmation_names_the_pending_serve_job_instead_of_nothing(
        snap_compare, size: str):
    """No container yet, but the operator's serve job waits for nodes: the verdict names
    it (a colleague's pending job is listed above, never named as ours)."""
    health = _idle(OWN_PENDING, JOBS[1])
    assert snap_compare(_stop_of(health), terminal_size=SIZES[size], run_before=_settle)


def test_the_verdict_names_the_operators_serve_jobs_that_have_not_ended():
    def said(health: ClusterHealth, recipe: str | None = None) -> str:
        return verdict(health, lambda w: True, "Stop", "2nodes", recipe=recipe).plain

    nothing = "Nothing of 2nodes runs on its nodes."
    assert said(_idle(OWN_PENDING, JOBS[1])) == (
        "Slurm job 43 of qwen3-235b-2node is PENDING: nothing of it runs on the nodes of "
        "2nodes yet.")
    assert said(_idle(replace(OWN_PENDING, state="RUNNING", nodes=("spark1",)))) == (
        "Slurm job 43 of qwen3-235b-2node is RUNNING: nothing of it runs on the nodes of "
        "2nodes yet.")
    assert said(_idle(OWN_PENDING), recipe="qwen3-235b-2node").startswith("Slurm job 43 ")
    assert said(_idle(OWN_PENDING), recipe="toy") == nothing  # another recipe's job
    assert said(_idle(JOBS[1])) == nothing  # a colleague's: never ours to name
    assert said(_idle(replace(OWN_PENDING, state="COMPLETED"))) == nothing  # ended
    assert said(_idle(replace(OWN_PENDING, name="train-7b"))) == nothing  # not a serve
    assert said(_idle()) == nothing


def _idle_slurm_unknown() -> ClusterHealth:
    return replace(_idle(), slurm=SlurmStatus("spark", error="login1: squeue: timed out"))


def test_the_verdict_never_says_nothing_runs_while_slurm_cannot_be_asked():
    said = verdict(_idle_slurm_unknown(), lambda w: True, "Stop", "2nodes").plain
    assert said == ("No container of 2nodes runs, but its Slurm jobs are unknown: Slurm "
                    "could not be asked.")


@pytest.mark.parametrize("size", SIZES)
def test_a_stop_confirmation_while_slurm_cannot_be_asked(snap_compare, size: str):
    assert snap_compare(_stop_of(_idle_slurm_unknown()), terminal_size=SIZES[size],
                        run_before=_settle)


def test_the_verdict_shows_slurms_words_through_the_filter_never_as_markup():
    hostile = Job("43\x1b]0;owned\x07", "PENDING", "", "", "ops", (),
                  "sparktui-[bold red]toy\n")
    text = verdict(_idle(hostile), lambda w: True, "Stop", "2nodes")
    assert text.plain == ("Slurm job 43\\x1b]0;owned\\x07 of [bold red]toy\\n is PENDING: "
                          "nothing of it runs on the nodes of 2nodes yet.")
    assert [span.style for span in text.spans] == ["bold"]  # one style: no markup was read


def _any_nodes_plan(tmp_path):
    text = SLURM_EXAMPLE.read_text().replace("[clusters.slurm]\n",
                                             '[clusters.slurm]\nallocate = "any"\n')
    (tmp_path / "config.toml").write_text(text)
    return build_plan(load_config(tmp_path / "config.toml"),
                      load_recipe(RECIPES / "qwen3-235b-2node" / "recipe.toml"))


def test_a_plan_on_any_nodes_says_the_nodes_it_shows_are_the_first_by_rank(tmp_path):
    shown = render(_any_nodes_plan(tmp_path), "text")
    assert ("slurm: any 2 of the cluster's nodes, as Slurm gives them: the nodes below are "
            "the first by rank; a serve resolves the plan on the job's") in shown
    named = build_plan(load_config(SLURM_EXAMPLE),
                       load_recipe(RECIPES / "qwen3-235b-2node" / "recipe.toml"))
    assert "any 2" not in render(named, "text")


@pytest.mark.parametrize("size", SIZES)
def test_the_serve_preview_of_a_plan_on_any_nodes(snap_compare, size: str, tmp_path):
    plan = _any_nodes_plan(tmp_path)
    screen = ServePlanScreen(plan.recipe, plan.cluster, render(plan, "text"), "")
    assert snap_compare(Host(screen), terminal_size=SIZES[size], run_before=_settle)
