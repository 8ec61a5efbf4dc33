"""Maintain the gettext catalogs under ``locales/`` (a developer tool, never imported at run time).

    python -m sparktui.i18n_catalogs update   # extract, merge every .po, compile every .mo
    python -m sparktui.i18n_catalogs check    # what is missing, stale or broken (exit 1 if any)
    python -m sparktui.i18n_catalogs todo     # the untranslated entries of each language, as JSON
    python -m sparktui.i18n_catalogs fill FILE.json  # {"ru": {msgid: msgstr or [forms]}} into .po

``update`` is idempotent: files are rewritten only when their content changes, header dates
are fixed and source locations carry no line numbers, so moving code does not churn the
catalogs. The English catalog is filled with the msgids themselves; the others keep their
translations, drop obsolete entries and get new ones empty (or fuzzy when babel finds a
close old one: fuzzy counts as missing until a translator checks it and removes the flag).
For fr/es/it (3 forms in babel: one, exact millions, other) ``fill`` accepts two forms.
"""

from __future__ import annotations

import copy
import io
import json
import re
import string
import sys
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from sparktui.i18n import DOMAIN, LANGUAGES

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "sparktui"
LOCALES = ROOT / "locales"
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2), "N_plural": (1, 2)}
FIXED_DATE = datetime(2025, 1, 1, tzinfo=UTC)
HEADER = "# Translations of sparktui, the DGX Spark cluster dashboard.\n# See locales/GLOSSARY.md."


def po_path(lang: str, locales: Path = LOCALES) -> Path:
    return locales / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(lang: str, locales: Path = LOCALES) -> Path:
    return locales / lang / "LC_MESSAGES" / f"{DOMAIN}.mo"


def extract(source: Path = SOURCE) -> Catalog:
    """Every msgid of the source tree, with the files (no line numbers) that use it."""
    template = Catalog(project="sparktui", header_comment=HEADER, creation_date=FIXED_DATE,
                       revision_date=FIXED_DATE, fuzzy=False)
    found = extract_from_dir(str(source), method_map=[("**.py", "python")], keywords=KEYWORDS,
                             comment_tags=("TRANSLATORS:",), strip_comment_tags=True)
    for filename, _lineno, message, comments, context in found:
        path = (source / filename).relative_to(source.parent).as_posix()
        existing = template.get(message if isinstance(message, str) else message[0], context)
        locations: list[tuple[str, int | None]] = [(path, None)]
        if existing is not None:
            locations = [loc for loc in existing.locations if loc != (path, None)] + locations
        # babel writes a location without a line number; its hints say lineno is an int
        template.add(message, None, locations,  # type: ignore[arg-type]
                     auto_comments=comments, context=context)
    return template


def _load(path: Path, lang: str) -> Catalog:
    if path.exists():
        with path.open("rb") as fh:
            return read_po(fh, locale=lang, domain=DOMAIN)
    return Catalog(locale=lang, domain=DOMAIN, project="sparktui", header_comment=HEADER,
                   creation_date=FIXED_DATE, revision_date=FIXED_DATE, fuzzy=False)


def _po_bytes(catalog: Catalog) -> bytes:
    catalog.creation_date = FIXED_DATE
    catalog.revision_date = FIXED_DATE
    catalog.fuzzy = False
    catalog.last_translator = "sparktui developers"
    catalog.language_team = f"{catalog.locale} <sparktui>" if catalog.locale else ""
    buf = io.BytesIO()
    write_po(buf, catalog, width=100, sort_output=True, ignore_obsolete=True,
             include_lineno=False)
    return buf.getvalue()


def _mo_bytes(po: bytes, lang: str) -> bytes:
    """Compile the .po text as written (a catalog in memory can differ from its file)."""
    buf = io.BytesIO()
    write_mo(buf, read_po(io.BytesIO(po), locale=lang, domain=DOMAIN), use_fuzzy=False)
    return buf.getvalue()


def _write_if_changed(path: Path, data: bytes) -> bool:
    if path.exists() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


def _fill_english(catalog: Catalog) -> None:
    for msg in catalog:
        if not msg.id:
            continue
        msg.flags.discard("fuzzy")
        msg.string = msg.id if isinstance(msg.id, str) else tuple(msg.id)


def update(locales: Path = LOCALES, source: Path = SOURCE) -> list[Path]:
    """Extract, merge into every language's .po and compile the .mo; return what changed."""
    template = extract(source)
    changed = []
    if _write_if_changed(locales / f"{DOMAIN}.pot", _po_bytes(template)):
        changed.append(locales / f"{DOMAIN}.pot")
    for lang in LANGUAGES:
        catalog = _load(po_path(lang, locales), lang)
        catalog.update(copy.deepcopy(template), no_fuzzy_matching=False,
                       update_header_comment=False)
        catalog.obsolete.clear()
        if lang == "en":
            _fill_english(catalog)
        po = _po_bytes(catalog)
        mo = _mo_bytes(po, lang)
        for path, data in ((po_path(lang, locales), po), (mo_path(lang, locales), mo)):
            if _write_if_changed(path, data):
                changed.append(path)
    return changed


def placeholders(text: str) -> list[str]:
    """``{name}``/``{name:spec}`` fields and ``%(name)s`` of a message, sorted."""
    found = []
    try:
        for _lit, field, spec, conv in string.Formatter().parse(text):
            if field is not None:
                found.append("{" + field + (f"!{conv}" if conv else "") +
                             (f":{spec}" if spec else "") + "}")
    except ValueError:
        found.append("<unbalanced braces>")
    found += re.findall(r"%(?:\([^)]*\))?[sdrifgx]", text)
    return sorted(found)


def _forms(message: Message) -> list[str]:
    value = message.string
    if isinstance(value, str):
        return [value]
    return list(value or [])


def _untranslated(message: Message) -> bool:
    forms = _forms(message)
    return "fuzzy" in message.flags or not forms or any(not form for form in forms)


def _placeholder_problems(lang: str, message: Message) -> Iterator[str]:
    ids = [message.id] if isinstance(message.id, str) else list(message.id)
    wanted = placeholders(ids[-1])
    for form in _forms(message):
        got = placeholders(form)
        if got != wanted:
            yield f"{lang}: placeholders {got} instead of {wanted} in {form!r} (msgid {ids[0]!r})"


def check(locales: Path = LOCALES, source: Path = SOURCE,
          languages: Iterable[str] = LANGUAGES) -> list[str]:
    """Every problem of the catalogs against the source, one line each (empty: all good)."""
    template = extract(source)
    wanted = {m.id if isinstance(m.id, str) else m.id[0] for m in template if m.id}
    problems = []
    for lang in languages:
        path = po_path(lang, locales)
        if not path.exists():
            problems.append(f"{lang}: {path} is missing")
            continue
        catalog = _load(path, lang)
        have = {m.id if isinstance(m.id, str) else m.id[0]: m for m in catalog if m.id}
        problems += [f"{lang}: missing {mid!r}" for mid in sorted(wanted - have.keys())]
        problems += [f"{lang}: stale {mid!r}" for mid in sorted(have.keys() - wanted)]
        problems += [f"{lang}: obsolete {m.id!r}" for m in catalog.obsolete.values()]
        for mid, message in sorted(have.items()):
            if mid not in wanted:
                continue
            if _untranslated(message):
                problems.append(f"{lang}: untranslated or fuzzy {mid!r}")
                continue
            nforms = 1 if isinstance(message.id, str) else catalog.num_plurals
            if len(_forms(message)) != nforms:
                problems.append(f"{lang}: {mid!r} has {len(_forms(message))} forms, not {nforms}")
            problems += list(_placeholder_problems(lang, message))
        mo = mo_path(lang, locales)
        if not mo.exists() or mo.read_bytes() != _mo_bytes(path.read_bytes(), lang):
            problems.append(f"{lang}: {mo} is not compiled from the current .po (run update)")
    return problems


def todo(locales: Path = LOCALES) -> dict[str, dict[str, object]]:
    """The entries each language still needs: msgid -> "" or a list of empty plural forms."""
    out: dict[str, dict[str, object]] = {}
    for lang in LANGUAGES:
        catalog = _load(po_path(lang, locales), lang)
        pending: dict[str, object] = {}
        for message in catalog:
            if message.id and _untranslated(message):
                if isinstance(message.id, str):
                    pending[message.id] = ""
                else:
                    pending[message.id[0]] = {"plural": message.id[1],
                                              "forms": [""] * catalog.num_plurals}
        if pending:
            out[lang] = pending
    return out


def _translation(lang: str, msgid: str, value: object) -> str | list[str]:
    """A text, or plural forms given as a list or as ``{"forms": [...]}``."""
    if isinstance(value, dict):
        value = value["forms"]
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple) and all(isinstance(form, str) for form in value):
        return list(value)
    raise ValueError(f"{lang}: {msgid!r}: a string or a list of plural forms, not {value!r}")


def fill(translations: dict[str, dict[str, object]], locales: Path = LOCALES) -> int:
    """Write translations (msgid -> text, or a list of plural forms) into the .po files."""
    count = 0
    for lang, entries in translations.items():
        path = po_path(lang, locales)
        catalog = _load(path, lang)
        for msgid, value in entries.items():
            message = catalog.get(msgid)
            if message is None:
                raise KeyError(f"{lang}: {msgid!r} is not in {path}; run update first")
            text = _translation(lang, msgid, value)
            if isinstance(message.id, str) != isinstance(text, str):
                wants = "a string" if isinstance(message.id, str) else "plural forms"
                raise ValueError(f"{lang}: {msgid!r} wants {wants}")
            if not isinstance(text, str) and len(text) == 2 and catalog.num_plurals == 3 \
                    and lang in ("fr", "es", "it"):
                text = [text[0], text[1], text[1]]  # one, many (exact millions), other
            message.string = text if isinstance(text, str) else tuple(text)
            message.flags.discard("fuzzy")
            count += 1
        po = _po_bytes(catalog)
        _write_if_changed(path, po)
        _write_if_changed(mo_path(lang, locales), _mo_bytes(po, lang))
    return count


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    command = args[0] if args else "update"
    if command == "update":
        for path in update():
            print(f"updated {path.relative_to(ROOT)}")
        return 0
    if command == "check":
        problems = check()
        print("\n".join(problems) or "catalogs complete")
        return 1 if problems else 0
    if command == "todo":
        print(json.dumps(todo(), ensure_ascii=False, indent=1))
        return 0
    if command == "fill" and len(args) == 2:
        data = json.loads(Path(args[1]).read_text(encoding="utf-8"))
        print(f"filled {fill(data)} entries")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
