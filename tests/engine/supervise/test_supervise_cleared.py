"""An ended supervision is history, on the real test bed (issue 29, items 11, 12, 22).

A head (or a home) shared by two clusters keeps one record: each cluster sees only its
own. A give-up stays an alert until an operator acts on its group: a stop, an end of
supervision or a new serve of the recipe clears it, `supervise --end` says what it did and
whether the group runs, read afresh; and an ended record is not in a stop's confirmation.
The records are written where a supervisor leaves them (``plant``): what a supervisor
that gives up writes is tested in test_supervise.py and test_supervise_memory.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from lookalike import Why
from plan_support import run_module
from polling import eventually_async
from site_support import toy_recipe
from supervise_support import (
    TOP,
    SupervisorProcess,
    env,
    gave_up,
    group,
    plant,
    running,
    sparks,
    supervision,
    wait_supervised,
)

from sparktui.cli import main
from sparktui.config.loader import load_config
from sparktui.engine.supervise.record import Lease, SupervisionStatus

# A look-alike, not the real vLLM (tests/lookalike.py): supervised groups served per test; 2-node
# groups.
LOOKALIKE = (Why.SPEED, Why.MULTI_NODE)


def _shared_head(s, name: str = "solo") -> None:
    """A second cluster whose only node is node1, the head of ``test`` (as spark1 heads
    both 2nodes and 4nodes-switch in examples/config.toml)."""
    node = s.hosts.node("node1")
    s.config_path.write_text(s.config_path.read_text() + (
        f'\n[[clusters]]\nname = "{name}"\nnodes = [{{ name = "node1", ssh_ip = '
        f'"{node.addr}", ssh_port = {node.port}, ib_ip = "{node.addr}", rank = 0 }}]\n'))
    s.loaded = load_config(s.config_path)


def test_a_head_shared_by_two_clusters_shows_each_only_its_own_supervision(site, capsys):
    s = site(2)
    _shared_head(s)
    lease = Lease("tok", 600, "ops@laptop pid 7", "solo", "tbv", "foreground", time.time())
    plant(s, gave_up("solo", "tbv"), lease)
    capsys.readouterr()
    assert main(s.cli("health", "--cluster", "test")) == 0
    out = capsys.readouterr().out
    assert out.startswith("cluster test: not serving")
    assert "tbv" not in out and "supervis" not in out, out
    assert main(s.cli("health", "--cluster", "test", "--json")) == 0
    assert json.loads(capsys.readouterr().out)["supervision"]["state"] == "none"
    main(s.cli("health", "--cluster", "solo"))
    assert "tbv supervised by ops@laptop pid 7 (foreground)" in capsys.readouterr().out
    # a stop of test (its marks, its clearing on node1) ends nothing of solo's: its lease
    # and record stay as they were
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy", "--cluster", "test")) == 0
    capsys.readouterr()
    assert main(s.cli("stop", "--cluster", "test", "--yes")) == 0
    out = capsys.readouterr().out
    assert "stopped what test ran" in out and "tbv" not in out, out
    status = supervision(s)
    assert status.state == "none"
    folder = s.hosts.node("node1").home / ".local/state/sparktui/supervise"
    assert Lease.parse((folder / "lease").read_text()) == lease
    assert json.loads((folder / "state.json").read_text())["cleared"] is None


def test_a_local_nodes_home_shows_no_other_clusters_supervision(tmp_path):
    # the session's own HOME (tests/conftest.py): what a test bed cluster's supervisor
    # left in this machine's home, as `tb2` of a test did in the issue
    plant(None, gave_up("tb2", "tbv"), home=Path(os.environ["HOME"]))
    shown = run_module(["health", "--json"], cwd=tmp_path)  # no config: the cluster local
    health = json.loads(shown.stdout)
    assert health["cluster"] == "local" and health["supervision"]["state"] == "none"
    assert "tbv" not in run_module(["health"], cwd=tmp_path).stdout


def test_a_serve_or_a_stop_of_the_recipe_clears_its_give_up(site, capsys):
    s = sparks(site(2, top=TOP))
    s.recipe("toy", toy_recipe())
    plant(s, gave_up())
    assert supervision(s).state == "gave_up"
    capsys.readouterr()
    assert main(s.cli("serve", "toy")) == 0
    assert "the give-up of toy's supervision is history now" in capsys.readouterr().out
    status = supervision(s)
    assert status.state == "ended" and status.record.cleared.code == "served"
    assert status.record.reason.code == "too_many_restarts"  # what happened is kept
    plant(s, gave_up())  # it gave up once more, its group left as it was
    assert main(s.cli("stop", "--yes")) == 0
    out = capsys.readouterr().out
    # the confirmation's health shows the give-up the stop is about
    assert "supervision of toy gave up at" in out.split("stopped what")[0]
    assert "the give-up of toy's supervision is history now" in out
    status = supervision(s)
    assert status.state == "ended" and not status.current
    cleared = status.record.cleared
    assert cleared.code == "disarmed" and cleared.values["action"] == "stop"
    main(s.cli("health"))  # history: health says it
    line = capsys.readouterr().out
    assert "toy not supervised since" in line and "it gave up (2 restarts in the last 10m)" \
        in line and "cleared by stop of test by" in line
    # item 22: that ended record is no part of a later stop's confirmation
    assert main(s.cli("serve", "toy")) == 0
    capsys.readouterr()
    assert main(s.cli("stop", "--yes")) == 0
    out = capsys.readouterr().out
    assert "not supervised since" not in out and "⟳" not in out, out
    assert supervision(s).record.cleared.code == "disarmed"  # a serve left history alone


def test_end_clears_a_give_up_on_a_wall_screen_and_says_the_group_does_not_run(site):
    from textual.widgets import Static
    from tui.dashboard_support import dashboard_app

    from sparktui.tui.widgets.alerts import AlertsStrip
    from sparktui.tui.widgets.header import StatusHeader

    s = site(2, top=TOP)
    plant(s, gave_up())
    app = dashboard_app(s, watch=True)
    ended: list[subprocess.CompletedProcess[str]] = []

    def header() -> str:
        return str(app.dashboard.query_one(StatusHeader).query_one("#header-right",
                                                                    Static).render())

    async def go() -> str:
        async with app.run_test(size=(160, 40)) as pilot:
            strip = app.dashboard.query_one(AlertsStrip)
            await eventually_async(lambda: "gave up" in str(strip.render()), 60, settle=pilot.pause)
            assert "✖" in header() and "gave up" in header()
            # from another operator's terminal (the wall screen changes nothing)
            worker = threading.Thread(target=lambda: ended.append(subprocess.run(
                [sys.executable, "-m", "sparktui", *s.cli("supervise", "--end")],
                env=env(), capture_output=True, text=True, timeout=120, check=False)))
            worker.start()
            await eventually_async(lambda: not worker.is_alive(), 120, settle=pilot.pause)
            await eventually_async(lambda: "gave up" not in str(strip.render()), 60,
                                   settle=pilot.pause)
            assert "gave up" not in header()
            return str(strip.render())

    asyncio.run(go())
    assert [e.returncode for e in ended] == [0], ended
    out = ended[0].stdout
    assert "the give-up of toy's supervision is history now" in out
    assert "toy does not run on test" in out and "keeps running" not in out, out
    assert supervision(s).state == "ended"


def test_a_new_supervisor_of_the_recipe_replaces_its_give_up(site):
    s = sparks(site(2, top=TOP))
    s.recipe("toy", toy_recipe())
    old = gave_up()
    plant(s, old)
    with SupervisorProcess(s, "toy") as sup:
        status: SupervisionStatus = wait_supervised(s, sup)
        assert status.record.since > old.updated and status.record.reason is None
        assert status.record.restarts == () and status.record.status == "watching"
        assert main(s.cli("stop", "--yes")) == 0
        assert sup.wait(60) == 0, sup.output()
    assert group(s) == {} and running(s) is None
