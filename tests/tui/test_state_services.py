"""Dashboard state with services: recipe summaries and which workload a node row shows."""

from __future__ import annotations

from pathlib import Path

from sparktui.engine.status import NodeHealth, Workload
from sparktui.tui.actions import Action
from sparktui.tui.viewmodel.health import main_workload
from sparktui.tui.viewmodel.recipes import scan_recipes
from tui.support import RECIPES


def _work(name: str, role: str, state: str = "running") -> Workload:
    return Workload(name=name, recipe="r", cluster="c", node="n1", rank=0, role=role,
                    runtime="docker", state=state,
                    service=name if role == "service" else None)


def _summary(tmp_path: Path, text: str) -> str:
    folder = tmp_path / "recipes" / "demo"
    folder.mkdir(parents=True)
    (folder / "recipe.toml").write_text(text, encoding="utf-8")
    (entry,), problems = scan_recipes(tmp_path / "recipes")
    assert problems == [] and entry.ok, entry.problems
    return entry.summary()


def test_services_only_recipe_counts_its_pool_and_dedicated_nodes(tmp_path: Path) -> None:
    text = """\
docker_image = "busybox:1"

[[services]]
name = "a"
nodes = 2
command = ["x"]

[[services]]
name = "b"
nodes = 3
command = ["x"]

[[services]]
name = "off"
nodes = 4
enabled = false
command = ["x"]

[[services]]
name = "d"
placement = { node = "dedicated" }
command = ["x"]
"""
    assert _summary(tmp_path, text) == "services only · 6 nodes"


def test_services_only_recipe_without_pools_needs_one_node(tmp_path: Path) -> None:
    text = 'docker_image = "busybox:1"\n\n[[services]]\nname = "a"\ncommand = ["x"]\n'
    assert _summary(tmp_path, text) == "services only · 1 node"


def test_example_recipes_summaries() -> None:
    entries = {e.name: e for e in scan_recipes(RECIPES)[0]}
    assert entries["pools-toy"].summary() == "services only · 4 nodes"
    assert entries["qwen3-235b-2node"].summary().startswith("vllm · 2 nodes · :")
    assert "None" not in "".join(e.summary() for e in entries.values())


def test_node_row_shows_the_engine_not_a_service_next_to_it() -> None:
    etcd, head = _work("etcd", "service"), _work("sparktui-r", "head")
    assert main_workload(NodeHealth("n1", True, workloads=[etcd, head])) is head
    worker = _work("sparktui-r", "worker")
    assert main_workload(NodeHealth("n1", True, workloads=[etcd, worker])) is worker


def test_a_crashed_engine_beats_a_running_service_and_running_beats_exited() -> None:
    crashed = _work("sparktui-r", "head", state="exited")
    etcd = _work("etcd", "service")
    assert main_workload(NodeHealth("n1", True, workloads=[etcd, crashed])) is crashed
    old, new = _work("old", "head", state="exited"), _work("new", "head")
    assert main_workload(NodeHealth("n1", True, workloads=[old, new])) is new
    gone, live = _work("a", "service", state="exited"), _work("b", "service")
    assert main_workload(NodeHealth("n1", True, workloads=[gone, live])) is live
    assert main_workload(NodeHealth("n1", True)) is None


def test_failed_serve_note_nothing_removed_or_kept() -> None:
    from sparktui.engine.api import ActionResult, Progress
    from sparktui.tui.screens.progress import serve_failure_note
    from sparktui.tui.viewmodel.runs import ActionRun

    def note(*events: tuple[str, str | None, str]) -> str:
        result = ActionResult(False, "n1", "service", "boom")
        run = ActionRun(1, Action.SERVE, "c", "r", 0.0,
                        events=[Progress(*e, "") for e in events], result=result)
        return serve_failure_note(run)

    assert "Nothing was started" in note(("preflight", "n1", "ok"),
                                         ("service", None, "started"),
                                         ("service", "n1", "failed"))
    kept = note(("service", None, "started"), ("service", "n1", "ok"),
                ("service", "n1", "failed"))
    assert "still on the cluster" in kept
    def named(*events: tuple[str, str | None, str, str]) -> str:
        result = ActionResult(False, "n1", "launch", "boom")
        return serve_failure_note(ActionRun(1, Action.SERVE, "c", "r", 0.0, result=result,
                                            events=[Progress(*e) for e in events]))

    # A launch that failed after docker created its container: removed, and named.
    removed = named(("launch", "n1", "failed", "no such entrypoint"),
                    ("rollback", "n1", "ok", "sparktui-r"))
    assert removed == "Removed what this serve had started: sparktui-r (n1)."
    left = named(("launch", "n1", "ok", ""), ("left", "n1", "warn", "sparktui-r"))
    assert "sparktui-r (n1)" in left and "sparktui stop --cluster c --recipe r" in left
