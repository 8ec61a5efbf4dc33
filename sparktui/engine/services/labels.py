"""What a service container's ``sparktui.*`` labels say, read back on the nodes.

Stop and health work from these labels, never from local state. Keys (without
the ``sparktui.`` prefix): ``role=service``, ``service``, ``service_index``,
``service_type``, ``start`` (phase), ``critical``, ``terminal``, ``readiness``
and ``metrics``. ``readiness`` is ``Readiness.as_dict()`` as JSON, or the short
``tcp:PORT``, ``http:PORT/PATH``, ``log:REGEX``, ``none``; ``metrics`` is a JSON
list of ``MetricsEndpoint.as_dict()`` (``nodes`` optional), or
``NAME:PORT/PATH`` items separated by commas. The plan writes both as JSON
(``plan/services/launch.py``); only a container without them (started by an older
sparktui) falls back to the defaults of the kind named by ``service_type``.
"""

from __future__ import annotations

from dataclasses import dataclass

from sparktui import untrusted_json
from sparktui.engine.status import Workload
from sparktui.plan.service_model import PHASES, Readiness


@dataclass(frozen=True)
class Endpoint:
    name: str
    port: int
    path: str
    nodes: list[str] | None = None  # None: every node the service runs on
    first_only: bool = False  # only the service's first instance (a cluster's head)


def flag(workload: Workload, key: str) -> bool:
    return workload.labels.get(key, "").lower() in ("1", "true", "yes")


def phase_rank(workload: Workload) -> int:
    phase = workload.labels.get("start", "")
    return PHASES.index(phase) if phase in PHASES else 0


def teardown_groups(services: list[Workload]) -> list[list[Workload]]:
    """Stop order: last phase first, critical services after every other one."""
    keys = sorted({(flag(w, "critical"), -phase_rank(w)) for w in services})
    return [[w for w in services if (flag(w, "critical"), -phase_rank(w)) == k] for k in keys]


def readiness(workload: Workload) -> Readiness | None:
    raw = workload.labels.get("readiness", "").strip()
    if not raw:
        kind = _kind(workload)
        return kind.readiness({}) if kind is not None else None
    if raw.startswith("{"):
        try:
            data = untrusted_json.loads(raw)
            return Readiness(kind=str(data.get("kind", "none")), port=_port(data.get("port")),
                             path=data.get("path"), pattern=data.get("pattern"),
                             timeout=float(data.get("timeout") or 300.0))
        except (ValueError, AttributeError, TypeError):
            return None
    kind, _, rest = raw.partition(":")
    if kind == "log":
        return Readiness("log", pattern=rest)
    if kind in ("tcp", "http"):
        port, slash, path = rest.partition("/")
        return Readiness(kind, port=_port(port), path=slash + path if slash else None)
    return Readiness("none") if kind == "none" else None


def metrics(workload: Workload) -> list[Endpoint]:
    raw = workload.labels.get("metrics", "").strip()
    if not raw:
        kind = _kind(workload)
        specs = kind.metrics({}) if kind is not None else []
        return [Endpoint(spec.name or str(workload.service), spec.port, spec.path,
                         first_only=spec.nodes == "first") for spec in specs]
    found: list[Endpoint] = []
    if raw.startswith("["):
        try:
            for item in untrusted_json.loads(raw):
                port = _port(item.get("port"))
                if port is not None:
                    nodes = item.get("nodes")
                    found.append(Endpoint(str(item.get("name") or workload.service), port,
                                          str(item.get("path") or "/metrics"),
                                          list(nodes) if isinstance(nodes, list) else None))
        except (ValueError, AttributeError, TypeError):
            return []
        return found
    for item in raw.split(","):
        name, _, rest = item.strip().rpartition(":")
        digits, slash, path = rest.partition("/")
        port = _port(digits)
        if port is not None:
            found.append(Endpoint(name or str(workload.service), port,
                                  slash + path if slash else "/metrics"))
    return found


def _kind(workload: Workload):
    """The registered kind of ``service_type`` (None for an unknown or missing type)."""
    from sparktui.plan.services.registry import kind_for

    return kind_for(workload.labels.get("service_type", "")) if workload.labels.get(
        "service_type") else None


def _port(value: object) -> int | None:
    try:
        port = int(str(value))
    except (TypeError, ValueError):
        return None
    return port if 0 < port < 65536 else None
