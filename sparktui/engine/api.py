"""The engine as the front-ends see it: its two faces, its operations and its values.

``tui/`` and ``cli/`` import from here and from no other engine module
(``tests/test_import_hygiene.py``). ``ClusterView`` only reads (health, logs, telemetry,
the deep check, a container's inspect, doctor's checks). ``ClusterControl`` adds the
actions that change a cluster, and hands the terminal to a node's tmux session or
container. Both are protocols every engine implements whole; nobody asks an engine which
methods it has. ``--watch`` is handed a view: the mutating methods are not hidden there,
they do not exist on the object. ``open_engine`` makes the real one.

The values the engine hands back are re-exported below, each from the light module that
defines it: the dashboard imports this module before its first frame, so nothing here
imports the SSH library, HTTP, pydantic or the engine's implementation (a function that
needs it imports it when called).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sparktui.engine.bench.kept import (
    Benched,
    BenchFailed,
    BenchHeard,
    BenchProgress,
    bench_dir,
    find_tool,
    kept,
    kept_runs,
)
from sparktui.engine.deadline import within
from sparktui.engine.doctor_check import FAIL, PASS, WARN, Check
from sparktui.engine.faces import ClusterControl, ClusterView, ReadOnlyView
from sparktui.engine.pull.offer import pull_would_fix
from sparktui.engine.pull.transfer import PullKind, PullParts, Source, Transfer, TransferSink
from sparktui.engine.remote.hostkeys import (
    KeyOutcome,
    KeyResult,
    foreign_line,
    init_host_keys,
    known_hosts_path,
)
from sparktui.engine.remote.node_error import NodeError
from sparktui.engine.results import ActionResult, ExecResult, Progress, ProgressSink
from sparktui.engine.slurm.jobs import Job, SlurmStatus, job_name
from sparktui.engine.slurm.serve import SlurmSaid
from sparktui.engine.status import (
    SOURCE_SEP,
    ClusterHealth,
    EngineStatus,
    LogBatch,
    LogLine,
    MetricsStatus,
    NodeHealth,
    RouterStatus,
    ServiceInstanceStatus,
    ServiceStatus,
    Workload,
    in_source,
    log_source,
)
from sparktui.engine.supervise.codes import (
    cleared_said,
    clearing_said,
    failure_said,
    mark_said,
    reason_said,
    short_said,
)
from sparktui.engine.supervise.ending import Ending, Group
from sparktui.engine.supervise.events import (
    ALERTS,
    Happening,
    SuperviseEvent,
    SuperviseResult,
    SuperviseSink,
)
from sparktui.engine.supervise.outcomes import Cleared, Disarmed, Installed, Short
from sparktui.engine.supervise.record import (
    Failure,
    Lease,
    Mark,
    Record,
    RestartEvent,
    SupervisionStatus,
)
from sparktui.engine.supervise.record import Reason as SupervisionReason
from sparktui.engine.telemetry.figures import (
    KV_SHARE,
    MEMORY_PCT,
    TELEMETRY_HEALTH_AGE,
    Alert,
    DeepCheck,
    EngineFigures,
    NodeFigures,
    TelemetryFrame,
    history_key,
)
from sparktui.engine.workloads.described import Described
from sparktui.engine.workloads.pick import (
    attachable,
    containers,
    recipes_of,
    share_holders,
)
from sparktui.engine.workloads.restart import (
    Restarted,
    RestartSaid,
    nothing_runs,
    restart_refusal,
)
from sparktui.steps import Outcome, Step, StepState

if TYPE_CHECKING:
    from sparktui.config.models import Config
    from sparktui.plan.model import LaunchPlan
    from sparktui.said import Said


def taken(health: ClusterHealth, plan: LaunchPlan) -> Said | None:
    """Why ``plan`` may not serve through its cluster's router: another recipe's ready
    head lists a name it serves (None: it may). Serve's preflight asks the same, and
    ``restart_refusal`` before a restart's stop."""
    from sparktui.engine.router_names import taken as names_taken  # the router's plan: heavy

    return names_taken(health, plan)


def open_engine(config: Config) -> ClusterControl:
    """The engine of ``config``: it opens no connection yet (nor imports asyncssh)."""
    from sparktui.engine.cluster import ClusterEngine

    return ClusterEngine(config)


def load_engine() -> None:
    """Import the engine's implementation now (the dashboard's loading thread does, so
    that ``open_engine`` does not block its first frames)."""
    import sparktui.engine.cluster  # noqa: F401


__all__ = [
    "ALERTS", "FAIL", "KV_SHARE", "MEMORY_PCT", "PASS", "SOURCE_SEP", "TELEMETRY_HEALTH_AGE",
    "WARN", "ActionResult", "Alert", "BenchFailed", "BenchHeard", "BenchProgress", "Benched",
    "Check", "Cleared", "ClusterControl", "ClusterHealth", "ClusterView", "DeepCheck",
    "Described", "Disarmed", "Ending", "EngineFigures", "EngineStatus", "ExecResult", "Failure",
    "Group", "Happening", "Installed", "Job", "KeyOutcome", "KeyResult", "Lease", "LogBatch",
    "LogLine", "Mark", "MetricsStatus", "NodeError", "NodeFigures", "NodeHealth", "Outcome",
    "Progress", "ProgressSink", "PullKind", "PullParts", "ReadOnlyView", "Record",
    "RestartEvent", "RestartSaid", "Restarted", "RouterStatus", "ServiceInstanceStatus",
    "ServiceStatus", "Short", "SlurmSaid", "SlurmStatus", "Source", "Step", "StepState",
    "SuperviseEvent", "SuperviseResult",
    "SuperviseSink", "SupervisionReason", "SupervisionStatus", "TelemetryFrame", "Transfer",
    "TransferSink", "Workload", "attachable", "bench_dir", "cleared_said", "clearing_said",
    "containers", "failure_said", "find_tool", "foreign_line", "history_key", "in_source",
    "init_host_keys", "job_name", "kept", "kept_runs", "known_hosts_path",
    "load_engine", "log_source",
    "mark_said", "nothing_runs", "open_engine", "pull_would_fix", "reason_said", "recipes_of",
    "restart_refusal", "share_holders", "short_said", "taken", "within",
]
