"""Hook entries (before_serve, after_stop, mods) in their three TOML forms.

``"cmd"`` is a raw shell command; ``{command = "cmd", on_failure = "warn"}`` the
same with a policy; ``{script = "alias"}`` a built-in host script.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, model_validator
from pydantic_core import PydanticCustomError

from sparktui.config.base import Strict


def _from_text(value: Any) -> Any:
    """``"cmd"`` is ``{command = "cmd"}``."""
    return {"command": value} if isinstance(value, str) else value


class HookEntry(Strict):
    """A hook: ``"cmd"``, ``{command = "cmd", on_failure = "warn"}`` or ``{script = "alias"}``."""

    command: str | None = None
    """A shell command, run on every node of the group."""
    script: str | None = None
    """A built-in host script (``stop_dgx_services``, ``restore_dgx_services``)."""
    on_failure: Literal["abort", "warn"] = "abort"

    @model_validator(mode="before")
    @classmethod
    def _text_is_a_command(cls, value: Any) -> Any:
        return _from_text(value)

    @model_validator(mode="after")
    def _one_of_command_or_script(self) -> HookEntry:
        if (self.command is None) == (self.script is None):
            raise PydanticCustomError("hook_shape", "a hook needs exactly one of command/script")
        return self

    @property
    def kind(self) -> str:
        return "script" if self.script is not None else "command"

    @property
    def run(self) -> str:
        return self.script if self.script is not None else (self.command or "")


Hook = Annotated[HookEntry, BeforeValidator(_from_text, json_schema_input_type=str | HookEntry)]
"""A hook in a list: the JSON Schema says that a plain string is one too."""
