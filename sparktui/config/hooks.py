"""Hook entries (before_serve, after_stop, mods) in their three TOML forms.

``"cmd"`` is a raw shell command; ``{command = "cmd", on_failure = "warn"}`` the
same with a policy; ``{script = "alias"}`` a built-in host script.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator
from pydantic_core import PydanticCustomError


class HookEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    command: str | None = None
    script: str | None = None
    on_failure: Literal["abort", "warn"] = "abort"

    @model_validator(mode="before")
    @classmethod
    def _bare_string(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"command": value}
        return value

    @model_validator(mode="after")
    def _one_of(self) -> HookEntry:
        if (self.command is None) == (self.script is None):
            raise PydanticCustomError("hook_shape", "a hook needs exactly one of command/script")
        return self

    @property
    def kind(self) -> str:
        return "script" if self.script is not None else "command"

    @property
    def run(self) -> str:
        return self.script if self.script is not None else (self.command or "")
