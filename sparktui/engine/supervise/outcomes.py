"""What supervision's actions report: values the front-ends show (through
``sparktui.engine.api``), in a light module of their own so that showing them imports
none of the SSH work that made them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sparktui.engine.supervise.record import Lease, Record
from sparktui.said import Text


@dataclass(frozen=True)
class Cleared:
    """What a clearing did on one head: the record made history, the lease removed."""

    node: str
    record: Record | None = None
    lease: Lease | None = None


@dataclass(frozen=True)
class Disarmed:
    """What a mark did: ``missed`` the nodes that could not take it; the supervisors that
    ``ended`` on it and those still ``running`` when the wait ran out; what it
    ``cleared``; ``unread`` the heads whose supervision could not be read (a supervisor
    there is unknown, never "none")."""

    missed: list[str]
    ended: list[Lease]
    running: list[Lease]
    cleared: list[Cleared]
    unread: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Installed:
    ok: bool
    node: str
    container: str = ""
    detail: Text = ""  # why not (``on_node.InstallSaid``, or what the node said)
    holder: Lease | None = None  # refused: the supervisor that holds the lease


@dataclass(frozen=True)
class Short:
    """A node whose available memory is below what the recipe needs (bytes)."""

    node: str
    available: float
    needed: float
