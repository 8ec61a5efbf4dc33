"""Find files shipped with sparktui, in a wheel or in a source checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """``host-scripts`` or ``locales``: inside the wheel, else the checkout's top level."""
    bundled = _PACKAGE / "_data" / name
    if bundled.is_dir():
        return bundled
    return _PACKAGE.parent / name


def shipped_recipes() -> Path | None:
    """The example recipes inside an installed wheel (replaced on every upgrade); None in a
    source checkout, where the examples are the developer's own files."""
    bundled = _PACKAGE / "_data" / "recipes"
    return bundled if bundled.is_dir() else None


def supervisor_dockerfile() -> Path:
    """The on-node supervisor's Dockerfile, built from a sparktui wheel (``supervise
    --dockerfile`` prints it): inside the wheel, else the checkout's."""
    bundled = _PACKAGE / "_data" / "supervisor.Dockerfile"
    return bundled if bundled.is_file() else _PACKAGE.parent / "supervisor-wheel.Dockerfile"
