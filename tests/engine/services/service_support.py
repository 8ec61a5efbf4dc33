"""Hand-built ServicePlans for engine tests, shaped like build_plan's (labels included).

The plan side computes these from recipes; the engine only needs the contract in
``sparktui/plan/service_model.py``, so these tests do not wait on recipe parsing.
"""

from __future__ import annotations

import json
from dataclasses import replace

from sparktui.config.models import Node
from sparktui.plan.model import LaunchPlan
from sparktui.plan.service_model import MetricsEndpoint, Readiness, ServiceInstance, ServicePlan


def service(name: str, nodes: list[Node], command: list[str], *, image: str = "busybox:1",
            type: str = "generic", start: str = "infra", critical: bool = False,
            terminal: bool = False, readiness: Readiness | None = None,
            metrics: list[MetricsEndpoint] | None = None, recipe: str = "svc",
            cluster: str = "test", env: dict[str, str] | None = None,
            pool: str | None = None) -> ServicePlan:
    readiness = readiness or Readiness("none")
    metrics = metrics or []
    instances = []
    for index, node in enumerate(nodes):
        container = f"sparktui-{recipe}-{name}-{index}"
        labels = {"recipe": recipe, "cluster": cluster, "node": node.name, "role": "service",
                  "service": name, "service_index": str(index), "service_type": type,
                  "start": start, "critical": str(critical).lower(),
                  "terminal": str(terminal).lower(),
                  "readiness": json.dumps(readiness.as_dict())}
        if metrics:
            labels["metrics"] = json.dumps([m.as_dict() for m in metrics])
        argv = ["docker", "run", "-d", "--name", container]
        for key, value in labels.items():
            argv += ["--label", f"sparktui.{key}={value}"]
        argv += ["--network", "host"]
        for key, value in (env or {}).items():
            argv += ["-e", f"{key}={value}"]
        values = {"index": str(index), "node": node.name, "node_ip": node.fabric_ip}
        argv += [image, *(_fill(arg, values) for arg in command)]
        instances.append(ServiceInstance(
            service=name, index=index, node=node.name, ssh_ip=node.ssh_ip,
            ssh_port=node.ssh_port, ib_ip=node.fabric_ip, local=node.local,
            container=container, env=dict(env or {}), launch=argv))
    return ServicePlan(name=name, type=type, start=start, critical=critical,
                       terminal=terminal, nodes=[n.name for n in nodes], instances=instances,
                       readiness=readiness, metrics=metrics, pool=pool)


def _fill(arg: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        arg = arg.replace("{" + key + "}", value)
    return arg


def services_only(cluster: str, services: list[ServicePlan], recipe: str = "svc",
                  user: str = "test") -> LaunchPlan:
    """A plan with no engine nodes (frontend none): the services are the whole run."""
    return LaunchPlan(recipe=recipe, cluster=cluster, engine="none", runtime="docker", port=0,
                      model="", image="", ssh_user=user, nodes=[], start_order=[],
                      services=services)


def with_services(plan: LaunchPlan, services: list[ServicePlan]) -> LaunchPlan:
    return replace(plan, services=services)
