"""What a kind of service brings: image, command, phase, probe, metrics, options."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from sparktui.config.services import MetricsSpec
from sparktui.plan.service_model import Readiness


@dataclass(frozen=True)
class Option:
    """One key a kind accepts in ``options``: its type and, for numbers, a range."""

    type: type[Any]
    expected: str  # shown in the error, e.g. "an integer from 1 to 64"
    minimum: int | None = None
    maximum: int | None = None

    def accepts(self, value: Any) -> bool:
        if self.type is int and (isinstance(value, bool) or not isinstance(value, int)):
            return False
        if not isinstance(value, self.type):
            return False
        number: Any = value  # bounds are only given for numbers
        if self.minimum is not None and number < self.minimum:
            return False
        return self.maximum is None or number <= self.maximum


class ServiceKind:
    """Defaults for every service of one ``type``; a recipe entry overrides them."""

    name: ClassVar[str] = ""
    image: ClassVar[str | None] = None
    """None: the recipe's ``docker_image`` (the kind's program ships with the engine image)."""
    command: ClassVar[tuple[str, ...]] = ()
    """Empty: the image's own entrypoint and command."""
    start: ClassVar[str] = "before_workers"
    critical: ClassVar[bool] = True
    placement: ClassVar[str] = "head"
    gpus: ClassVar[bool] = False
    docker_flags: ClassVar[tuple[str, ...]] = ()
    options: ClassVar[dict[str, Option]] = {}
    uses: ClassVar[tuple[str, ...]] = ()
    """Kinds whose exported env (addresses) this kind's containers receive."""

    def default_command(self, options: dict[str, Any]) -> list[str]:
        return list(self.command)

    def readiness(self, options: dict[str, Any]) -> Readiness:
        return Readiness("none")

    def metrics(self, options: dict[str, Any]) -> list[MetricsSpec]:
        return []

    def environment(self, options: dict[str, Any]) -> dict[str, str]:
        return {}

    def exports(self, ips: list[str], options: dict[str, Any]) -> dict[str, str]:
        """Env that tells the engine (and kinds that ``use`` this one) where it runs."""
        return {}

    def option_problems(self, options: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
        """``(key, code, params)`` per bad option; unknown keys are always errors."""
        found = []
        for key, value in options.items():
            spec = self.options.get(key)
            if spec is None:
                found.append((key, "service_option_unknown",
                              {"option": key, "type": self.name,
                               "known": sorted(self.options) or "-"}))
            elif not spec.accepts(value):
                found.append((key, "service_option_invalid",
                              {"option": key, "expected": spec.expected}))
        return found
