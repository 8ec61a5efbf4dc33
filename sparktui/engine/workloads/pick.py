"""Which of a node's workloads a shell or an inspect goes to (``sparktui shell``,
``sparktui inspect``, the dashboard's ``a`` and ``i``)."""

from __future__ import annotations

from sparktui.engine.status import Workload


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


def recipes_of(rows: list[Workload]) -> list[str]:
    """The recipes of ``rows``, in their order, once each."""
    return list(dict.fromkeys(w.recipe for w in rows))
