"""Strict, frozen models validated by pydantic-core directly, without pydantic.

A cold ``sparktui plan`` spent most of its time in pydantic itself: importing its
internals and generating core schemas from type annotations, on every start. The
models here declare their core schema as data instead (``field(text(...))``), and
pydantic-core's Rust validator is built from it on first use, in microseconds.
What is kept from pydantic: its validator, its error types and locations (which
``validation`` turns into file:line problems), ``model_validate``,
``model_fields_set``, ``model_copy`` and ``model_dump``. What is given up: type
annotations as the source of truth (each field states its schema), JSON schema
export and pydantic's serializers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, ClassVar

from pydantic_core import SchemaValidator

_MISSING: Any = object()
Schema = dict[str, Any]


class Field:
    """One model field: its core schema and its default (a value or a factory)."""

    __slots__ = ("default", "factory", "schema")

    def __init__(self, schema: Schema, default: Any = _MISSING,
                 factory: Callable[[], Any] | None = None):
        self.schema, self.default, self.factory = schema, default, factory

    def core(self) -> Schema:
        if self.factory is not None:
            return {"type": "default", "schema": self.schema, "default_factory": self.factory}
        if self.default is not _MISSING:
            return {"type": "default", "schema": self.schema, "default": self.default}
        return self.schema


def field(schema: Schema, default: Any = _MISSING, *,
          factory: Callable[[], Any] | None = None) -> Any:
    """A field of a ``Model``; lists, tables and models default through ``factory``."""
    return Field(schema, default, factory)


# -- schema builders (the subset of pydantic-core's core schema that the models use) --------

def _put(schema: Schema, **limits: Any) -> Schema:
    schema.update({k: v for k, v in limits.items() if v is not None})
    return schema


def text(*, min_length: int | None = None, max_length: int | None = None) -> Schema:
    return _put({"type": "str", "strict": True}, min_length=min_length, max_length=max_length)


def integer(*, ge: int | None = None, le: int | None = None) -> Schema:
    return _put({"type": "int", "strict": True}, ge=ge, le=le)


def number(*, gt: float | None = None, ge: float | None = None,
           le: float | None = None) -> Schema:
    """A finite float (TOML's ``inf`` and ``nan`` are refused); an integer is accepted."""
    return _put({"type": "float", "strict": True, "allow_inf_nan": False}, gt=gt, ge=ge, le=le)


MAX_SECONDS = 7 * 24 * 3600
"""The longest wait a config may ask for: a week (asyncio overflows near 1e300 s)."""


def duration(*, gt: float | None = 0, ge: float | None = None) -> Schema:
    """Seconds: finite, above ``gt`` (or at least ``ge``), at most ``MAX_SECONDS``."""
    return number(gt=None if ge is not None else gt, ge=ge, le=MAX_SECONDS)


def boolean() -> Schema:
    return {"type": "bool", "strict": True}


def literal(*values: str) -> Schema:
    return {"type": "literal", "expected": list(values)}


def nullable(inner: Schema) -> Schema:
    return {"type": "nullable", "schema": inner}


def array(items: Schema, *, min_length: int | None = None) -> Schema:
    return _put({"type": "list", "items_schema": items, "strict": True}, min_length=min_length)


def table(values: Schema) -> Schema:
    """A TOML table with string keys."""
    return {"type": "dict", "keys_schema": text(), "values_schema": values, "strict": True}


def anything() -> Schema:
    return {"type": "any"}


def before(function: Callable[[Any], Any], inner: Schema) -> Schema:
    return {"type": "function-before", "function": {"type": "no-info", "function": function},
            "schema": inner}


def after(function: Callable[[Any], Any], inner: Schema) -> Schema:
    return {"type": "function-after", "function": {"type": "no-info", "function": function},
            "schema": inner}


def nested(cls: type[Model]) -> Schema:
    return cls.core_schema()


# -- secrets -------------------------------------------------------------------------------

class Secret:
    """A string that never shows itself: repr, str, dumps and f-strings give stars."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        from sparktui.scrub import register

        self._value = value
        register(value)

    def get_secret_value(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('**********')"

    def __str__(self) -> str:
        return "**********"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


def secret() -> Schema:
    return after(Secret, text())


# -- models ----------------------------------------------------------------------------------

class Model:
    """Frozen, strict, unknown keys refused; fields declared with ``field(schema, ...)``.

    A subclass may define ``_before(cls, data)`` (a classmethod, on the raw input) and
    ``_after(self)`` (on the validated instance; it may set derived values with
    ``object.__setattr__``).
    """

    __slots__ = ("__dict__", "__pydantic_extra__", "__pydantic_fields_set__",
                 "__pydantic_private__")
    __pydantic_fields_set__: set[str]  # pydantic-core fills it as it validates into self
    _fields: ClassVar[dict[str, Field]] = {}
    _schema: ClassVar[Schema | None] = None
    _validator: ClassVar[SchemaValidator | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields = dict(cls._fields)
        for name, value in list(vars(cls).items()):
            if isinstance(value, Field):
                fields[name] = value
                delattr(cls, name)
        cls._fields, cls._schema, cls._validator = fields, None, None

    @classmethod
    def core_schema(cls) -> Schema:
        if cls.__dict__.get("_schema") is None:
            inner: Schema = {"type": "model-fields", "model_name": cls.__name__,
                             "extra_behavior": "forbid",
                             "fields": {name: {"type": "model-field", "schema": f.core()}
                                        for name, f in cls._fields.items()}}
            if "_before" in cls.__dict__:
                inner = before(cls._before, inner)  # type: ignore[attr-defined]
            schema: Schema = {"type": "model", "cls": cls, "schema": inner}
            if "_after" in cls.__dict__:
                schema = after(cls._after, schema)  # type: ignore[attr-defined]
            cls._schema = schema
        return cls._schema  # type: ignore[return-value]

    @classmethod
    def _get_validator(cls) -> SchemaValidator:
        if cls.__dict__.get("_validator") is None:
            cls._validator = SchemaValidator(cls.core_schema())
        return cls._validator  # type: ignore[return-value]

    def __init__(self, **data: Any) -> None:
        type(self)._get_validator().validate_python(data, self_instance=self)

    @classmethod
    def model_validate(cls, data: Any) -> Any:
        return cls._get_validator().validate_python(data)

    @property
    def model_fields_set(self) -> set[str]:
        return self.__pydantic_fields_set__

    def model_copy(self, *, update: dict[str, Any] | None = None) -> Any:
        """A shallow copy with ``update`` applied as given (not validated, like pydantic)."""
        copy = object.__new__(type(self))
        values = {**self.__dict__, **(update or {})}
        object.__setattr__(copy, "__dict__", values)
        object.__setattr__(copy, "__pydantic_fields_set__",
                           self.__pydantic_fields_set__ | set(update or ()))
        object.__setattr__(copy, "__pydantic_extra__", None)
        return copy

    def model_dump(self) -> dict[str, Any]:
        return {name: _dump(value) for name, value in self.__dict__.items()}

    def model_dump_json(self) -> str:
        return json.dumps(self.model_dump(), default=str)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.__dict__ == self.__dict__

    def __hash__(self) -> int:
        return hash((type(self), *self.__dict__.values()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items())
        return f"{type(self).__name__}({inner})"


def _dump(value: Any) -> Any:
    if isinstance(value, Model):
        return value.model_dump()
    if isinstance(value, list):
        return [_dump(v) for v in value]
    if isinstance(value, dict):
        return {k: _dump(v) for k, v in value.items()}
    return value
