"""Sentences as data: a code and the values that fill it; the words are made when shown.

What the engine (and the plan) report in a sentence is a ``Said``: a member of a
``Code`` enum, whose value is its words (an ``N_`` template, translated when shown), and
its parameters. ``str(said)`` is the words in the language active then: text output and
the dashboard print it. ``as_json`` is the code (the member's name in lowercase) and the
parameters as they are: JSON output is the same document in every language.

A parameter is a plain value (text read from a node stays as it came), a number (a
``Seconds``, ``Duration``, ``Size``, ``Percent``, ``Millis``, ``Number`` or ``Gib`` is
shown in the language's units, written to JSON as the number), another ``Said``, or a
list of them (shown apart by commas; ``Items`` names another separator).
"""

from __future__ import annotations

import json
import math
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Self, TypeAlias

from sparktui.fmt import (
    format_duration,
    format_gib,
    format_ms,
    format_number,
    format_percent,
    format_seconds,
    format_size,
)
from sparktui.i18n import _, ngettext


class Code(Enum):
    """The base of every enum of codes: a member's value is its words (``N_("...")``, or
    ``N_plural(...)`` for words that follow the count ``{n}``),
    its JSON code the enum's name and its own, ``reason.timeout`` for ``Reason.TIMEOUT``.
    Subclasses are declared beside what says them; ``tests/test_said.py`` checks that no
    two share a name."""

    @property
    def code(self) -> str:
        return f"{_snake(type(self).__name__)}.{self.name.lower()}"

    @property
    def fields(self) -> frozenset[str]:
        """The names its words take (``{port}``)."""
        words = self.value[0] if isinstance(self.value, tuple) else self.value
        return frozenset(name.split(".")[0].split("[")[0]
                         for _text, name, _spec, _conv in string.Formatter().parse(words)
                         if name)

    def words(self, params: Mapping[str, Any]) -> str:
        """Its words in the active language (the plural form of ``params["n"]``)."""
        if isinstance(self.value, tuple):
            return ngettext(self.value[0], self.value[1], int(params.get("n", 1)))
        return _(self.value)


def _snake(name: str) -> str:
    """``NodeFailure`` -> ``node_failure``."""
    return "".join(f"_{c.lower()}" if c.isupper() and i else c.lower()
                   for i, c in enumerate(name))


class Layout(Code):
    """Sentences put together, with no words of their own (so nothing to translate)."""

    COLON = "{head}: {tail}"
    SEMICOLON = "{head}; {tail}"
    LINES = "{head}\n{tail}"
    CONCAT = "{head}{tail}"
    SPACE = "{head} {tail}"
    VALUE = "{value}"  # a value alone (a latency): its words are its unit


class Seconds(float):
    """A span in seconds: shown in the language's unit ("2.5 s", "2,5 с"), a number in JSON."""

    def __format__(self, spec: str) -> str:
        return super().__format__(spec) if spec else format_seconds(float(self))

    def __str__(self) -> str:
        return format_seconds(float(self))


class Duration(float):
    """An age or a window in seconds: shown in two units at most ("4h 10m"), a number in
    JSON."""

    def __format__(self, spec: str) -> str:
        return super().__format__(spec) if spec else format_duration(float(self))

    def __str__(self) -> str:
        return format_duration(float(self))


class Size(int):
    """A size in bytes: shown in binary units ("1.5 GiB"), a number in JSON."""

    def __format__(self, spec: str) -> str:
        return super().__format__(spec) if spec else format_size(int(self))

    def __str__(self) -> str:
        return format_size(int(self))


class Percent(float):
    """A share 0..1: shown as the language writes a percentage ("42%", "42 %")."""

    def __format__(self, spec: str) -> str:
        return super().__format__(spec) if spec else format_percent(float(self))

    def __str__(self) -> str:
        return format_percent(float(self))


class Millis(float):
    """A latency in milliseconds: "26 ms", "26 мс"; a number in JSON."""

    def __format__(self, spec: str) -> str:
        return super().__format__(spec) if spec else format_ms(float(self))

    def __str__(self) -> str:
        return format_ms(float(self))


class Number(float):
    """A figure as the language writes numbers ("1,234.5", "1 234,5"): ``digits``
    decimals at most (exactly, when ``fixed``), a "+" before it when ``signed``; a
    number in JSON."""

    digits: int
    fixed: bool
    signed: bool

    def __new__(cls, value: float, digits: int = 2, *, fixed: bool = False,
                signed: bool = False) -> Self:
        self = super().__new__(cls, value)
        self.digits, self.fixed, self.signed = digits, fixed, signed
        return self

    def __format__(self, spec: str) -> str:
        return super().__format__(spec) if spec else str(self)

    def __str__(self) -> str:
        sign = "+" if self.signed and self >= 0 else ""
        return sign + format_number(float(self), self.digits, self.fixed)


class Gib(Number):
    """A size already in GiB, kept in GiB with ``digits`` decimals: "243.2 GiB"."""

    def __new__(cls, value: float, digits: int = 1) -> Self:
        return super().__new__(cls, value, digits, fixed=True)

    def __str__(self) -> str:
        return format_gib(float(self), self.digits)


Param: TypeAlias = "str | int | float | bool | Said | Items | Sequence[Param] | None"


@dataclass(frozen=True)
class Items:
    """Values or sentences one after another, apart by ``sep`` (a plain list is apart by
    commas); a list in JSON."""

    items: Sequence[Param]
    sep: str


@dataclass(frozen=True)
class Said:
    code: Code
    params: Mapping[str, Param] = field(default_factory=dict)

    def __str__(self) -> str:
        values = {k: _shown(v) for k, v in self.params.items()}
        try:
            return self.code.words(self.params).format(**values)
        except (KeyError, IndexError, ValueError):  # words and values that do not match:
            return f"{self.code.code}: {values}"  # still everything that was said

    def as_json(self) -> dict[str, Any]:
        return {"code": self.code.code, "params": {k: json_value(v)
                                                   for k, v in self.params.items()}}

    def __hash__(self) -> int:  # its parameters are a dict: hashed as their JSON
        return hash(json.dumps(self.as_json(), sort_keys=True, default=str))

    def redacted(self, redact: Callable[[str], str]) -> Said:
        """The same with every text parameter passed through ``redact`` (a token scrubbed)."""
        return Said(self.code, {k: _redacted(v, redact) for k, v in self.params.items()})


def said(code: Code, /, **params: Param) -> Said:
    return Said(code, params)


def joined(layout: Layout, head: Text, tail: Text) -> Said:
    return Said(layout, {"head": head, "tail": tail})


def lines(items: Sequence[Text]) -> Text:
    """``items`` one a line."""
    if len(items) == 1:
        return items[0]
    return joined(Layout.LINES, items[0], lines(items[1:]))


def _shown(value: Param) -> Any:
    if isinstance(value, Said):
        return str(value)
    if isinstance(value, Items):
        return value.sep.join(str(_shown(v)) for v in value.items)
    if isinstance(value, (list, tuple)):
        return ", ".join(str(_shown(v)) for v in value)
    return value  # numbers keep their type: a template may give them a format ({pct:.0f})


def json_value(value: Any) -> Any:
    """What JSON holds for ``value``: a ``Said`` as its code and parameters, a number as
    a plain number, lists and dicts by their items."""
    if isinstance(value, Said):
        return value.as_json()
    if isinstance(value, bool) or value is None or type(value) in (str, int, float):
        return value
    if isinstance(value, float):
        return float(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, Items):
        return [json_value(v) for v in value.items]
    if isinstance(value, Mapping):
        return {k: json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    return value


def _redacted(value: Param, redact: Callable[[str], str]) -> Param:
    if isinstance(value, Said):
        return value.redacted(redact)
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Items):
        return Items([_redacted(v, redact) for v in value.items], value.sep)
    if isinstance(value, (list, tuple)):
        return [_redacted(v, redact) for v in value]
    return value


Text: TypeAlias = "str | Said"
"""A detail: text as it came (an image ID, a container's name, a node's own output), or
a sentence as data."""


def text_json(value: Text | None) -> Any:
    """A detail for JSON: text as it is, a sentence as its code and parameters."""
    return value.as_json() if isinstance(value, Said) else value


READ_DEPTH = 8
"""How deep a sentence read back may nest (``joined`` in ``joined``): more is not ours."""
KEPT_CHARS = 300
"""The longest text a node keeps of a sentence (a value it said, a path): the rest is cut."""


def kept_json(value: Text | None) -> Any:
    """A detail as a node keeps it (a supervision record): ``text_json``'s document, each
    text cut to ``KEPT_CHARS``, and beside a sentence's ``params`` the unit of each value
    that has one (``"units": {"free": "size"}``), so that ``text_from_json`` gives back
    the sentence that says the same words in any language ("96.0 GiB", "96,0 ГиБ"), never
    the bare number the JSON holds (103079215104)."""
    if isinstance(value, Said):
        return _kept(value.redacted(lambda text: text[:KEPT_CHARS]))
    return value[:KEPT_CHARS] if isinstance(value, str) else value


def _kept(sentence: Said) -> dict[str, Any]:
    units = {k: unit for k, v in sentence.params.items() if (unit := _unit(v))}
    document = {"code": sentence.code.code,
                "params": {k: _kept_value(v) for k, v in sentence.params.items()}}
    return {**document, "units": units} if units else document


def _kept_value(value: Param) -> Any:
    if isinstance(value, Said):
        return _kept(value)
    if isinstance(value, Items):
        return [_kept_value(v) for v in value.items]
    if isinstance(value, list | tuple):
        return [_kept_value(v) for v in value]
    return json_value(value)


_UNITS: dict[str, type[float] | type[int]] = {
    "seconds": Seconds, "duration": Duration, "size": Size, "percent": Percent,
    "millis": Millis}
"""A value's unit as a node keeps it: ``size``; a ``Number``'s and a ``Gib``'s with their
digits (``number.2.fixed.signed``, ``gib.1``); a list's ``{"sep": "; ", "of": [...]}``
(an ``Items``' separator, its values' units)."""
_DIGITS = frozenset(str(n) for n in range(7))
"""The decimals a number read back may have (0 to 6)."""
MAX_SEPARATOR = 4


def _unit(value: Param) -> Any:
    """What ``value`` is, beyond the JSON of it (None: nothing, a plain value)."""
    if isinstance(value, Items | list | tuple):
        items = value.items if isinstance(value, Items) else value
        of = [_unit(v) for v in items]
        unit = {"sep": value.sep} if isinstance(value, Items) else {}
        return {**unit, "of": of} if any(of) else unit or None
    if isinstance(value, Gib):
        return f"gib.{value.digits}"
    if isinstance(value, Number):
        return ".".join(["number", str(value.digits), *(["fixed"] if value.fixed else []),
                         *(["signed"] if value.signed else [])])
    return next((name for name, cls in _UNITS.items() if type(value) is cls), None)


def _typed(value: Param, unit: Any) -> Param:
    """``value`` read back as the unit a node kept beside it says it was; a unit this
    version does not know, or that does not fit the value, leaves it as JSON held it."""
    if isinstance(value, list) and isinstance(unit, dict):
        of = unit["of"] if isinstance(unit.get("of"), list) else []
        items = [_typed(v, u) for v, u in zip(value, [*of, *[None] * len(value)], strict=False)]
        sep = unit.get("sep")
        return Items(items, sep) if isinstance(sep, str) and len(sep) <= MAX_SEPARATOR \
            and sep.isprintable() else items
    if not isinstance(unit, str) or isinstance(value, bool) \
            or not isinstance(value, int | float) or not math.isfinite(value):
        return value
    name, *rest = unit.split(".")
    digits = int(rest[0]) if rest and rest[0] in _DIGITS else None
    if name == "gib" and digits is not None and len(rest) == 1:
        return Gib(value, digits)
    if name == "number" and digits is not None and set(rest[1:]) <= {"fixed", "signed"}:
        return Number(value, digits, fixed="fixed" in rest, signed="signed" in rest)
    cls = _UNITS.get(name)
    return cls(value) if cls is not None and not rest else value


def text_from_json(data: Any, depth: int = READ_DEPTH) -> Text:
    """A detail as ``text_json`` or ``kept_json`` wrote it, read back (from a node's
    record: untrusted): text as it is, a sentence by its code among the codes loaded, its
    values as JSON held them, typed again by the units kept beside them (a ``Size`` is
    shown as one again). A code no loaded enum has stays its code, as text: what was
    said, never an error; anything else is no detail at all."""
    if isinstance(data, str):
        return data
    if not (depth and isinstance(data, dict) and isinstance(data.get("code"), str)
            and isinstance(data.get("params"), dict)):
        return ""
    code = _codes().get(data["code"])
    if code is None:
        return data["code"]
    units = data["units"] if isinstance(data.get("units"), dict) else {}
    return Said(code, {k: _typed(_param_from_json(v, depth - 1), units.get(k))
                       for k, v in data["params"].items() if isinstance(k, str)})


def _param_from_json(value: Any, depth: int) -> Param:
    if isinstance(value, dict):
        return text_from_json(value, depth)
    if isinstance(value, list):
        return [_param_from_json(v, depth - 1) for v in value] if depth else []
    return value if isinstance(value, str | int | float | bool) or value is None else None


def _codes() -> dict[str, Code]:
    """Every member of every ``Code`` enum loaded, by its JSON code (each code is one
    member's: ``tests/test_said.py``). Walked when asked: a module loaded since adds its
    own."""
    found: dict[str, Code] = {}
    todo: list[type[Code]] = list(Code.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        found.update((member.code, member) for member in cls)
    return found
