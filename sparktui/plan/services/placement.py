"""Which nodes run what: the engine's nodes, then pools in declaration order, then
one dedicated node, all by rank. ``compute`` is the engine's nodes plus every pool.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sparktui.config.models import Cluster, Node
from sparktui.config.recipe import Recipe
from sparktui.i18n import _


def pool_requests(recipe: Recipe) -> list[tuple[str, int]]:
    """``(owner, N)`` for every enabled service that owns nodes, in declaration order."""
    return [(s.name, s.nodes) for s in recipe.services if s.enabled and s.nodes is not None]


def wants_dedicated(recipe: Recipe) -> bool:
    return any(s.enabled and s.placement.node == "dedicated" for s in recipe.services)


def extra_nodes(recipe: Recipe) -> int:
    """Nodes the services need beyond the engine's."""
    return sum(n for _, n in pool_requests(recipe)) + int(wants_dedicated(recipe))


def breakdown(recipe: Recipe, engine_nodes: int) -> str:
    """``2 engine, 2 pool train, 1 dedicated``: what a node count is made of."""
    parts = [_("{count} engine").format(count=engine_nodes)] if engine_nodes else []
    parts += [_("{count} pool {name}").format(count=n, name=name)
              for name, n in pool_requests(recipe)]
    if wants_dedicated(recipe):
        parts.append(_("1 dedicated"))
    return ", ".join(parts)


@dataclass(frozen=True)
class Carve:
    engine: list[Node]
    pools: dict[str, list[Node]] = field(default_factory=dict)
    dedicated: Node | None = None
    head: Node | None = None

    @property
    def compute(self) -> list[Node]:
        return [*self.engine, *(n for nodes in self.pools.values() for n in nodes)]

    @property
    def all(self) -> list[Node]:
        seen = {n.name: n for n in [*self.engine, *self.compute]}
        for node in (self.head, self.dedicated):
            if node is not None:
                seen.setdefault(node.name, node)
        return sorted(seen.values(), key=lambda n: n.rank)


def carve(cluster: Cluster, recipe: Recipe, engine_count: int) -> Carve:
    """Cut the ranked nodes: the caller has checked that there are enough."""
    ranked = cluster.ranked
    cursor = engine_count
    pools: dict[str, list[Node]] = {}
    for name, count in pool_requests(recipe):
        pools[name] = ranked[cursor:cursor + count]
        cursor += count
    dedicated = ranked[cursor] if wants_dedicated(recipe) else None
    return Carve(engine=ranked[:engine_count], pools=pools, dedicated=dedicated,
                 head=ranked[0])
