"""Snapshots of the cluster's router in the clusters pane: its address and the models
it holds, and a router that does not answer, at 80x24 and 120x40. Deterministic: the
example config and a constructed health. Update with:
python -m pytest -n 0 tests/tui/test_snapshots_router.py --snapshot-update
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from sparktui.engine.status import ClusterHealth, RouterStatus
from sparktui.tui.widgets.clusters import ClustersPane, RefKind, lines_of
from tui.support import make_app, posting, serving_health

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
ADDRESS = "http://10.0.0.11:4000/v1"


def _router(ready: bool = True) -> ClusterHealth:
    status = (RouterStatus("spark1", ADDRESS, "running", ["qwen3-235b", "org/small"], True)
              if ready else RouterStatus("spark1", ADDRESS, "exited", error="exited (1)"))
    return replace(serving_health(), router=status)


@pytest.mark.parametrize("size", SIZES)
def test_the_router_and_its_models_in_the_clusters_pane(snap_compare, size: str):
    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=posting(_router()))


@pytest.mark.parametrize("size", SIZES)
def test_a_router_that_does_not_answer(snap_compare, size: str):
    assert snap_compare(make_app(), terminal_size=SIZES[size],
                        run_before=posting(_router(), _router(ready=False)))


async def test_the_router_lines_follow_the_health_and_leave_with_it():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await posting(_router())(pilot)
        pane: ClustersPane = app.dashboard.clusters_pane  # type: ignore[attr-defined]
        branch = pane.cluster_tree.root.children[0]
        line = next(iter(lines_of(branch, RefKind.ROUTER)))
        assert "router 10.0.0.11:4000" in str(line.label)
        assert [str(c.label) for c in line.children] == ["qwen3-235b", "org/small"]
        await posting(replace(_router(), router=RouterStatus(
            "spark1", ADDRESS, "running", ["org/small"], True)))(pilot)
        line = next(iter(lines_of(branch, RefKind.ROUTER)))
        assert [str(c.label) for c in line.children] == ["org/small"]
        await posting(serving_health())(pilot)
        assert not lines_of(branch, RefKind.ROUTER)
