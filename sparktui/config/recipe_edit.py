"""Editing a recipe in place: the form's fields in, a checked TOML text out.

* :func:`form_values` reads the common fields of a recipe as the texts a form shows
  (``args`` one per line, ``env`` as ``KEY=VALUE`` lines).
* :func:`apply_form` writes the form's texts into the file's text with tomlkit: a field
  whose value did not change is not touched, so comments, key order and layout survive;
  then the result goes through :func:`~sparktui.config.loader.parse_recipe`, the same
  validation and checks as ``load_recipe``. :func:`save_form` writes it only when clean.
* :func:`duplicate_recipe` copies a recipe under a new, checked folder name.

No widgets here: the dashboard's form and prompts call these functions.
"""

from __future__ import annotations

import contextlib
import re
import shlex
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError

from sparktui.config.discovery import list_recipes
from sparktui.config.files import atomic_write_text
from sparktui.config.json_schema import schema_text
from sparktui.config.loader import parse_recipe
from sparktui.config.rules import is_name
from sparktui.config.toml_source import parse_toml, read_text
from sparktui.errors import Problem, SparkError

TEXT_FIELDS = ("docker_image", "model")
INT_FIELDS = ("port", "tensor_parallel_size", "pipeline_parallel_size")
FORM_FIELDS = (*TEXT_FIELDS, *INT_FIELDS, "args", "env")
DEFAULTS: dict[str, Any] = {"port": 30000, "tensor_parallel_size": 1,
                            "pipeline_parallel_size": 1, "args": [], "env": {}}

_FLAG = re.compile(r"^--?[A-Za-z]")
_FIELD_ROOT = re.compile(r"[.\[]")


@dataclass(frozen=True)
class EditResult:
    """The would-be file text and what is wrong with it (nothing: it may be written)."""

    text: str
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def form_values(text: str, path: Path) -> dict[str, str]:
    """The form's texts for a recipe's TOML text; broken TOML raises ``SparkError``."""
    data = parse_toml(text, path).data
    values = {name: str(data.get(name, "")) for name in TEXT_FIELDS}
    values.update({name: str(data.get(name, DEFAULTS[name])) for name in INT_FIELDS})
    args = data.get("args", [])
    values["args"] = "\n".join(str(a) for a in args) if isinstance(args, list) else str(args)
    env = data.get("env", {})
    values["env"] = "\n".join(f"{k}={v}" for k, v in env.items()) if isinstance(env, dict) \
        else str(env)
    return values


def form_field(problem: Problem) -> str | None:
    """The form field a problem belongs to (``args[2]`` -> ``args``), or None."""
    if not problem.field:
        return None
    root = _FIELD_ROOT.split(problem.field, maxsplit=1)[0]
    return root if root in FORM_FIELDS else None


def apply_form(text: str, values: Mapping[str, str], path: Path) -> EditResult:
    """``text`` with the form's values, checked like ``load_recipe(path)`` would."""
    try:
        doc = tomlkit.parse(text)
    except TOMLKitError:
        try:
            parse_toml(text, path)  # the located error of our own loader
        except SparkError as exc:
            return EditResult(text, exc.problems)
        raise
    parsed, problems = _parse_values(values, path)
    for name, value in parsed.items():
        _set(doc, name, value)
    new_text = tomlkit.dumps(doc)
    try:
        parse_recipe(new_text, path)
    except SparkError as exc:
        seen = {p.field for p in problems}  # a field the form could not parse kept its value
        problems += [p for p in exc.problems if p.field not in seen]
    return EditResult(new_text, problems)


def save_form(path: Path, values: Mapping[str, str]) -> EditResult:
    """Apply the form to the file on disk; write it (atomically) only when it checks out."""
    try:  # bounded, and a FIFO or a device is a problem, not a hang
        text = read_text(path)
    except SparkError as exc:
        return EditResult("", exc.problems)
    result = apply_form(text, values, path)
    if result.ok:
        atomic_write_text(path, result.text)
    return result


def pin_image(path: Path, image: str) -> EditResult:
    """The recipe's ``docker_image`` set to ``image`` (``repo@sha256:...``, from
    ``sparktui pin``), everything else of the file as it was; written only when it checks
    out, like the form."""
    return save_form(path, {"docker_image": image})


# -- parsing the form's texts -------------------------------------------------------------


def _parse_values(values: Mapping[str, str], path: Path) -> tuple[dict[str, Any], list[Problem]]:
    parsed: dict[str, Any] = {}
    problems: list[Problem] = []

    def problem(code: str, field: str, **params: Any) -> None:
        problems.append(Problem(code, params, path, None, field))

    for name in TEXT_FIELDS:
        if name in values:
            parsed[name] = values[name].strip()
    for name in INT_FIELDS:
        if name in values:
            raw = values[name].strip()
            try:
                parsed[name] = int(raw)
            except ValueError:
                problem("wrong_type", name, expected="integer", got=repr(raw) if raw else "''")
    if "args" in values:
        parsed["args"] = [line.strip() for line in values["args"].splitlines() if line.strip()]
    if "env" in values:
        env: dict[str, str] = {}
        for line in values["env"].splitlines():
            if not line.strip():
                continue
            key, sep, value = line.partition("=")
            key = key.strip()
            if not sep or not key:
                problem("env_line", "env", line=line.strip())
            elif key in env:
                problem("duplicate_name", f"env.{key}", name=key)
            else:
                env[key] = value.strip()
        parsed["env"] = env
    return parsed, problems


# -- writing values into the document, touching only what changed ----------------------------


def _plain(item: Any) -> Any:
    return item.unwrap() if hasattr(item, "unwrap") else item


def _set(doc: tomlkit.TOMLDocument, name: str, value: Any) -> None:
    present = name in doc
    if present and _plain(doc[name]) == value:
        return
    if not present and (value == DEFAULTS.get(name) or value in ("", [], {})):
        return
    if name == "args":
        doc[name] = _args_array(value, doc[name] if present else None)
    elif name == "env":
        _set_env(doc, value)
    else:
        doc[name] = value


def _set_env(doc: tomlkit.TOMLDocument, env: dict[str, str]) -> None:
    if not env:
        del doc["env"]
        return
    if "env" not in doc:
        table = tomlkit.table()
        for key, value in env.items():
            table[key] = value
        doc["env"] = table
        return
    table = doc["env"]
    for key in [k for k in table if k not in env]:
        del table[key]
    for key, value in env.items():
        if key not in table or _plain(table[key]) != value:
            table[key] = value


def _toml_string(text: str) -> str:
    """A literal string for text with quotes or backslashes (JSON args read better)."""
    printable = all(ch >= " " and ch != "\x7f" for ch in text)
    if printable and "'" not in text and ('"' in text or "\\" in text):
        return f"'{text}'"
    return tomlkit.string(text).as_string()


def _args_array(args: list[str], old: Any) -> Any:
    """A multi-line array, each flag on a line with its values, indented like the old one."""
    if not args:
        return tomlkit.array()
    indent = "  "
    if old is not None:
        match = re.search(r"\n([ \t]+)\S", old.as_string())
        indent = match.group(1) if match else indent
    groups: list[list[str]] = []
    for arg in args:
        if groups and not _FLAG.match(arg) and _FLAG.match(groups[-1][0]) \
                and len(groups[-1]) == 1:
            groups[-1].append(arg)
        else:
            groups.append([arg])
    body = "".join(indent + ", ".join(_toml_string(a) for a in group) + ",\n"
                   for group in groups)
    return tomlkit.parse(f"args = [\n{body}]\n")["args"]


# -- new recipes ----------------------------------------------------------------------------


def name_problem(directory: Path, name: str) -> Problem | None:
    """Why ``name`` cannot be a new recipe folder in ``directory`` (None: it can)."""
    if not is_name(name) or ".." in name:
        return Problem("recipe_name_invalid", {"name": name}, None, None, "name")
    try:
        known = list_recipes(directory)
    except SparkError as exc:
        return exc.problems[0]
    if name in known or (directory / name).exists():
        return Problem("recipe_exists", {"name": name}, directory / name, None, "name")
    return None


def duplicate_recipe(directory: Path, source: Path, name: str) -> Path:
    """Copy ``source`` (a recipe.toml) to ``directory/name/recipe.toml``; its path."""
    problem = name_problem(directory, name)
    if problem is not None:
        raise SparkError(problem)
    text = read_text(source)
    with contextlib.suppress(TOMLKitError):  # a broken one is copied as it is
        text = tomlkit.dumps(tomlkit.parse(text))
    folder = directory / name
    folder.mkdir()
    target = folder / "recipe.toml"
    atomic_write_text(target, with_schema_directive(text))
    write_recipe_schema(directory)
    return target


def copy_recipes(source: Path, target: Path) -> list[str]:
    """Every recipe folder of ``source`` that ``target`` does not have yet, copied there
    (nothing of the user's is overwritten); the names copied."""
    target.mkdir(parents=True, exist_ok=True)
    copied = []
    for recipe in sorted(source.glob("*/recipe.toml")):
        folder = target / recipe.parent.name
        if not folder.exists():
            shutil.copytree(recipe.parent, folder)
            copy = folder / "recipe.toml"
            atomic_write_text(copy, with_schema_directive(read_text(copy)))
            copied.append(folder.name)
    if copied:
        write_recipe_schema(target)
    return copied


SCHEMA_FILE = "recipe.schema.json"
SCHEMA_DIRECTIVE = f"#:schema ../{SCHEMA_FILE}"
"""taplo's directive (Even Better TOML in VS Code, Neovim's and Helix's taplo): the
recipe's schema, written beside the recipe folders, for completion, hover docs and
errors while a recipe sparktui wrote is edited. A path, not a URL: editors work offline."""


def with_schema_directive(text: str) -> str:
    """``text`` starting with :data:`SCHEMA_DIRECTIVE`, once (a copy of a copy keeps one;
    a directive that pointed elsewhere is replaced)."""
    first, newline, rest = text.partition("\n")
    if first.startswith("#:schema"):
        text = rest if newline else ""
    return f"{SCHEMA_DIRECTIVE}\n{text}"


def write_recipe_schema(directory: Path) -> Path:
    """The recipe schema of this sparktui in ``directory`` (rewritten: an upgrade's new
    fields reach the editor)."""
    path = directory / SCHEMA_FILE
    atomic_write_text(path, schema_text("recipe"))
    return path


def editor_command(environ: Mapping[str, str]) -> list[str]:
    """``$VISUAL``, then ``$EDITOR``, then ``vi``; split like a shell would."""
    for name in ("VISUAL", "EDITOR"):
        value = environ.get(name, "").strip()
        if value:
            return shlex.split(value)
    return ["vi"]
