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

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, SecretStr

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


class Secret(SecretStr):
    """A string that never shows itself (repr, str, dumps and f-strings give stars), and
    that ``sparktui.scrub`` masks wherever else it turns up (a log line, an error)."""

    def __init__(self, secret_value: str) -> None:
        from sparktui.scrub import register

        super().__init__(secret_value)
        register(secret_value)
