"""What a power action will do, worked out from the config alone (no network).

The CLI prints it before asking for confirmation and the dashboard can show it in
its confirmation dialog; ``sparktui.engine.power.control`` carries it out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sparktui.i18n import _

if TYPE_CHECKING:
    from sparktui.config.models import Config, Node


@dataclass(frozen=True)
class PowerPlan:
    action: str  # "off", "on" or "switch"
    source: str | None  # the cluster powered off (off, switch)
    target: str | None  # the cluster powered on (on, switch)
    down: tuple[Node, ...] = ()  # shut down over SSH, then their entity turned off
    down_extras: tuple[str, ...] = ()  # turned off after the nodes' entities
    up: tuple[Node, ...] = ()  # entity turned on, then awaited over SSH
    up_extras: tuple[str, ...] = ()  # turned on before the nodes' entities
    kept: tuple[str, ...] = ()  # switch: nodes of both clusters, left running
    kept_extras: tuple[str, ...] = ()  # switch: extras of both clusters, left on

    @property
    def up_entities(self) -> list[str]:
        return _unique([*self.up_extras, *(n.entity for n in self.up if n.entity)])

    @property
    def down_entities(self) -> list[str]:
        """Entities of the nodes going down, except those the action turns on again."""
        keep = set(self.up_entities)
        return _unique([n.entity for n in self.down if n.entity and n.entity not in keep])

    @property
    def entities(self) -> list[str]:
        """Every entity the action may switch (checked with Home Assistant first)."""
        return _unique([*self.down_entities, *self.down_extras, *self.up_entities])

    @property
    def confirm_name(self) -> str:
        """What the operator types to confirm: the cluster that goes down (or comes up)."""
        return self.source or self.target or ""

    def lines(self, config: Config) -> list[str]:
        """The plan in words, one line per stage."""
        out: list[str] = []
        if self.down:
            out.append(_("shut down over SSH: {nodes}; wait until each stops answering SSH "
                         "(up to {seconds:g} s)").format(
                nodes=_names(self.down), seconds=config.shutdown_timeout_seconds))
        off = [*self.down_entities, *self.down_extras]
        if off:
            delay = config.home_assistant.shutdown_delay_seconds if config.home_assistant \
                else 0
            text = (_("then, {seconds} s later, turn off: {entities} (only for nodes that "
                      "went down)") if delay else
                    _("then turn off: {entities} (only for nodes that went down)"))
            out.append(text.format(seconds=delay, entities=", ".join(off)))
        if self.up_entities:
            out.append(_("turn on: {entities}").format(entities=", ".join(self.up_entities)))
        if self.up:
            out.append(_("wait until {nodes} answer SSH (up to {seconds:g} s)").format(
                nodes=_names(self.up), seconds=config.boot_timeout_seconds))
        if self.kept or self.kept_extras:
            out.append(_("left running: {items}").format(
                items=", ".join([*self.kept, *self.kept_extras])))
        bare = [n.name for n in self.down if not n.entity]
        if bare:
            out.append(_("no entity, shut down only: {nodes}").format(nodes=", ".join(bare)))
        return out


def plan_off(config: Config, cluster: str) -> PowerPlan:
    c = config.cluster(cluster)
    return PowerPlan("off", c.name, None, down=tuple(c.ranked),
                     down_extras=tuple(_unique(c.extra_entities)))


def plan_on(config: Config, cluster: str) -> PowerPlan:
    c = config.cluster(cluster)
    return PowerPlan("on", None, c.name, up=tuple(c.ranked),
                     up_extras=tuple(_unique(c.extra_entities)))


def plan_switch(config: Config, source: str, target: str) -> PowerPlan:
    """Power off what only ``source`` uses, power on (and await) everything ``target`` uses."""
    a, b = config.cluster(source), config.cluster(target)
    in_b = {n.name for n in b.nodes}
    return PowerPlan(
        "switch", a.name, b.name,
        down=tuple(n for n in a.ranked if n.name not in in_b),
        down_extras=tuple(_unique([x for x in a.extra_entities if x not in b.extra_entities])),
        up=tuple(b.ranked), up_extras=tuple(_unique(b.extra_entities)),
        kept=tuple(n.name for n in a.ranked if n.name in in_b),
        kept_extras=tuple(_unique([x for x in a.extra_entities if x in b.extra_entities])))


def _unique(items: list) -> list:
    return list(dict.fromkeys(items))


def _names(nodes: tuple[Node, ...]) -> str:
    return ", ".join(n.name for n in nodes)


__all__ = ["PowerPlan", "plan_off", "plan_on", "plan_switch"]
