"""Services the rest of the recipe implies, merged with the declared ones.

``[frontend] type = "dynamo"`` implies etcd, nats and the frontend itself;
``mooncake_kv_store`` the Mooncake master; ``telemetry`` the two exporters. A
declared entry with the same name replaces the implied one (keeping its type and
options unless it sets them, and the reason); ``enabled = false`` drops it.
"""

from __future__ import annotations

from dataclasses import dataclass

from sparktui.config.recipe import Recipe
from sparktui.config.services import ServiceEntry

FRONTEND = "frontend"


@dataclass(frozen=True)
class Wanted:
    """A service that will run: its entry, where it was declared, why it exists."""

    entry: ServiceEntry
    index: int | None  # position in the recipe's [[services]]; None for a purely implied one
    implied_by: str | None = None

    def loc(self, *rest: str | int) -> tuple:
        """Where to point an error: the declaration, else the recipe key that implied it."""
        if self.index is not None:
            return ("services", self.index, *rest)
        return tuple((self.implied_by or "services").split(" ", 1)[0].split("."))


def implied(recipe: Recipe) -> list[tuple[ServiceEntry, str]]:
    found: list[tuple[ServiceEntry, str]] = []
    if recipe.frontend_type == "dynamo":
        reason = "frontend.type = dynamo"
        options = {"http_port": recipe.frontend.port} if recipe.frontend.port else {}
        found += [(ServiceEntry(name="etcd", type="etcd"), reason),
                  (ServiceEntry(name="nats", type="nats"), reason),
                  (ServiceEntry(name=FRONTEND, type="dynamo-frontend", options=options,
                                image=recipe.frontend.image), reason)]
    if recipe.mooncake_kv_store:
        found.append((ServiceEntry(name="mooncake-master", type="mooncake-master"),
                      "mooncake_kv_store = true"))
    if recipe.telemetry:
        found += [(ServiceEntry(name="dcgm-exporter", type="dcgm-exporter"), "telemetry = true"),
                  (ServiceEntry(name="node-exporter", type="node-exporter"), "telemetry = true")]
    return found


def wanted_services(recipe: Recipe) -> list[Wanted]:
    """Implied services first (a declared replacement takes their place), then the rest."""
    declared = {e.name: i for i, e in enumerate(recipe.services)}
    out: list[Wanted] = []
    replaced: set[str] = set()
    for entry, reason in implied(recipe):
        index = declared.get(entry.name)
        if index is None:
            out.append(Wanted(entry, None, reason))
            continue
        replaced.add(entry.name)
        mine = recipe.services[index]
        if mine.enabled:
            out.append(Wanted(_over(entry, mine), index, reason))
    out += [Wanted(e, i) for i, e in enumerate(recipe.services)
            if e.enabled and e.name not in replaced]
    return out


def _over(base: ServiceEntry, mine: ServiceEntry) -> ServiceEntry:
    given = mine.model_fields_set
    update: dict = {"options": {**base.options, **mine.options}}
    for key in ("type", "image"):
        if key not in given:
            update[key] = getattr(base, key)
    return mine.model_copy(update=update)
