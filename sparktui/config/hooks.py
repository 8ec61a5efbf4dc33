"""Hook entries (before_serve, after_stop, mods) in their three TOML forms.

``"cmd"`` is a raw shell command; ``{command = "cmd", on_failure = "warn"}`` the
same with a policy; ``{script = "alias"}`` a built-in host script.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import PydanticCustomError

from sparktui.config.schema import Model, field, literal, nullable, text


class HookEntry(Model):
    command: str | None = field(nullable(text()), None)
    script: str | None = field(nullable(text()), None)
    on_failure: str = field(literal("abort", "warn"), "abort")

    @classmethod
    def _before(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"command": value}
        return value

    def _after(self) -> HookEntry:
        if (self.command is None) == (self.script is None):
            raise PydanticCustomError("hook_shape", "a hook needs exactly one of command/script")
        return self

    @property
    def kind(self) -> str:
        return "script" if self.script is not None else "command"

    @property
    def run(self) -> str:
        return self.script if self.script is not None else (self.command or "")
