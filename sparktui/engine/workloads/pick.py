"""Which of a node's workloads an operation goes to: a shell or an inspect (``sparktui
shell``, ``sparktui inspect``, the dashboard's ``a`` and ``i``), a tmux attach (``sparktui
tmux``, ``t``), the memory a serve shares (``fit``, serve's preflight, the dashboard's
confirmation). The CLI and the dashboard pick through these same functions."""

from __future__ import annotations

from sparktui.config.roles import ENGINE_ROLES
from sparktui.engine.status import Workload
from sparktui.plan.fit.shares import HOLDING_STATES, Holder


def containers(found: list[Workload], cluster: str, recipe: str | None = None, *,
               running: bool = False) -> list[Workload]:
    """sparktui's containers among ``found`` (workloads one can enter and inspect, since
    the dashboard's ``a`` and ``i`` pick alike; of ``recipe``, if given; only the running
    ones with ``running``): the cluster's engine members first, then its services, then
    other clusters'. A foreign one is never picked (``Workload.ours``)."""
    rows = [w for w in found if w.ours and w.can_enter and w.can_inspect
            and recipe in (None, w.recipe) and (w.running or not running)]
    return sorted(rows, key=lambda w: (w.cluster != cluster, w.is_service, not w.running,
                                       w.recipe, w.name))


def attachable(found: list[Workload], cluster: str) -> list[Workload]:
    """The workloads among ``found`` whose console a terminal can be handed to (tmux's
    sessions: ``sparktui tmux``, the dashboard's ``t``), ``cluster``'s first, then by
    name."""
    return sorted((w for w in found if w.can_attach), key=lambda w: (w.cluster != cluster,
                                                                     w.name))


def recipes_of(rows: list[Workload]) -> list[str]:
    """The recipes of ``rows``, in their order, once each."""
    return list(dict.fromkeys(w.recipe for w in rows))


def share_holders(workloads: list[Workload], recipe: str) -> list[Holder]:
    """The engine members of other recipes among a node's workloads that hold (or are
    about to take) their share of its memory. A foreign one counts too: the node says
    what holds its own memory, and a holder only ever makes a serve refuse (the fit
    acts on no workload), where leaving it out would overcommit the node."""
    return [Holder(w.recipe, w.mem_share, w.port, w.name) for w in workloads
            if w.role in ENGINE_ROLES and w.recipe != recipe and w.state in HOLDING_STATES]
