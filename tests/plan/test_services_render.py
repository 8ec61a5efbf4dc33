"""The services' part of the plan's outputs: JSON keys in the documented order, and
the sh script starting them in phase order around the engine."""

from __future__ import annotations

import json
from pathlib import Path

from services_support import svc
from test_services_plan import DYNAMO, plan_of

from sparktui.plan.render import render_json, render_sh

SERVICE_KEYS = ["name", "type", "nodes", "start", "critical", "terminal", "pool", "readiness",
                "metrics", "implied_by", "image", "runtime", "owns_pool", "placement",
                "instances"]
INSTANCE_KEYS = ["service", "index", "node", "ssh_ip", "ssh_port", "ib_ip", "local",
                 "container", "env", "launch", "rank"]


def test_service_json_keys_in_documented_order(tmp_path: Path) -> None:
    plan = plan_of(tmp_path, DYNAMO, cluster="quad")
    data = json.loads(render_json(plan))
    assert data["frontend"] == "dynamo"
    for entry in data["services"]:
        assert list(entry) == SERVICE_KEYS
        assert list(entry["readiness"]) == ["kind", "port", "path", "pattern", "timeout"]
        for inst in entry["instances"]:
            assert list(inst) == INSTANCE_KEYS
            assert all(isinstance(a, str) for a in inst["launch"])
    doc = (Path(__file__).resolve().parents[2] / "docs" / "plan-format.md").read_text()
    for key in SERVICE_KEYS:
        assert f"| `{key}` |" in doc, key


def test_sh_starts_services_in_phase_order_around_the_engine(tmp_path: Path) -> None:
    recipe = DYNAMO + svc('command = ["late"]\nstart = "after_frontend"\n', name="late")
    plan = plan_of(tmp_path, recipe, cluster="quad")
    lines = render_sh(plan, scripts={}).splitlines()

    def first(text: str) -> int:
        return next(i for i, line in enumerate(lines) if text in line)

    etcd, frontend = first("--name sparktui-demo--etcd-0"), first("sparktui-demo--frontend-0")
    worker, head = first("# launch on n1"), first("# launch on n0")
    late = first("sparktui-demo--late-0")
    assert etcd < frontend < worker < head < late
    assert "readiness tcp :2379" in lines[etcd - 1]
