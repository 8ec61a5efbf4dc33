"""Service kinds by name: ``@register`` a ``ServiceKind`` subclass in its own module.

Adding a kind is one new module under ``kinds/`` imported from ``kinds/__init__.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from sparktui.plan.services.kinds.base import ServiceKind

K = TypeVar("K", bound="type[ServiceKind]")

KINDS: dict[str, ServiceKind] = {}


def register(cls: K) -> K:
    """Class decorator: one instance of the kind, found by its ``name``."""
    if cls.name in KINDS:
        raise ValueError(f"service kind {cls.name!r} registered twice")
    KINDS[cls.name] = cls()
    return cls


def kind_for(name: str) -> ServiceKind | None:
    import sparktui.plan.services.kinds  # noqa: F401  (registers the built-in kinds)

    return KINDS.get(name)


def known_kinds() -> list[str]:
    import sparktui.plan.services.kinds  # noqa: F401

    return sorted(KINDS)
