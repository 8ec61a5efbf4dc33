"""The base of every config, recipe and result model, and the field types they share.

Every model is a plain ``pydantic.BaseModel``: frozen, strict (TOML's types, no
coercion: ``"8"`` is not a port), unknown keys refused, a float never ``inf`` or
``nan``. Each field states its type once, as an annotation (``Port``, ``Seconds``,
``Literal[...]``); ``validation`` turns pydantic's errors into file:line problems.

``defer_build``: a model's validator is built the first time it validates, not at
import, so a command builds only the models it reads (``plan`` never builds the
benchmark results'). A field's docstring is its description in the JSON Schema
(``sparktui schema``, which editors show on hover): ``json_schema`` reads them when it
writes a schema, not pydantic's ``use_attribute_docstrings``, which parses every
model's source at import, on every command's path.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic_core import core_schema

MAX_SECONDS = 7 * 24 * 3600
"""The longest wait a config may ask for: a week (asyncio overflows near 1e300 s)."""


class Strict(BaseModel):
    """Frozen, strict, unknown keys refused, finite floats; built on first use."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False,
                              defer_build=True)


NonEmpty = Annotated[str, Field(min_length=1)]
Port = Annotated[int, Field(ge=1, le=65535)]
Seconds = Annotated[float, Field(gt=0, le=MAX_SECONDS)]
"""A wait in seconds: above 0, at most ``MAX_SECONDS`` (an integer is accepted)."""
SecondsOrZero = Annotated[float, Field(ge=0, le=MAX_SECONDS)]


class Secret:
    """A string that never shows itself (repr, str, dumps and f-strings give stars), and
    that ``sparktui.scrub`` masks wherever else it turns up (a log line, an error).

    pydantic's ``SecretStr`` does the first half, but importing ``pydantic.types`` for it
    cost every command (``plan`` included) about 18 ms; this is the same contract.
    """

    __slots__ = ("_value",)

    def __init__(self, secret_value: str) -> None:
        from sparktui.scrub import register

        self._value = secret_value
        register(secret_value)

    def get_secret_value(self) -> str:
        return self._value

    def __str__(self) -> str:
        return "**********" if self._value else ""

    def __repr__(self) -> str:
        return f"Secret('{self}')"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __len__(self) -> int:
        return len(self._value)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any,
                                     handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        from_text = core_schema.no_info_after_validator_function(cls, core_schema.str_schema())
        return core_schema.json_or_python_schema(
            json_schema=from_text,
            python_schema=core_schema.union_schema(
                [core_schema.is_instance_schema(cls), from_text], custom_error_type="string_type"),
            serialization=core_schema.plain_serializer_function_ser_schema(str, when_used="json"))

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: core_schema.CoreSchema,
                                     handler: GetJsonSchemaHandler) -> dict[str, Any]:
        return {"type": "string", "format": "password", "writeOnly": True}
