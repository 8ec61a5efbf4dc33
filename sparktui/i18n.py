"""One translation function for every user-facing string.

Catalogs live in ``locales/<lang>/LC_MESSAGES/sparktui.mo`` (shipped inside the
wheel as ``sparktui/_data/locales``; ``python -m sparktui.i18n_catalogs update`` makes
them, see locales/GLOSSARY.md). Install the language before importing the TUI modules:
binding descriptions are built at import time. Numbers, sizes and times: sparktui.fmt.
"""

from __future__ import annotations

import gettext as _gettext
import os
from pathlib import Path

from sparktui.resources import data_dir

DOMAIN = "sparktui"
LANGUAGES = ("en", "ru", "es", "it", "fr", "de")

_translation: _gettext.NullTranslations = _gettext.NullTranslations()
_active = "en"


def N_(message: str) -> str:
    """Mark a string for extraction without translating it now."""
    return message


def N_plural(singular: str, plural: str) -> tuple[str, str]:
    """Mark a message with a plural form for extraction (``ngettext`` translates it)."""
    return singular, plural


def _(message: str) -> str:
    return _translation.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return _translation.ngettext(singular, plural, n)


# argparse's own words (usage, errors), so a translated CLI is translated all the way.
ARGPARSE_MESSAGES = (
    N_("usage: "), N_("positional arguments"), N_("options"),
    N_("show this help message and exit"), N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("the following arguments are required: %s"), N_("unrecognized arguments: %s"),
    N_("expected one argument"), N_("invalid %(type)s value: %(value)r"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("one of the arguments %s is required"), N_("not allowed with argument %s"),
)


def translate_argparse() -> None:
    """Send argparse's messages through our catalog (it calls gettext's globals)."""
    import argparse

    argparse._ = _  # type: ignore[attr-defined]
    argparse.ngettext = ngettext  # type: ignore[attr-defined]


def active_language() -> str:
    return _active


def detect_language(explicit: str | None = None, environ: dict[str, str] | None = None) -> str:
    """Pick the language from --lang, then LANGUAGE, LC_ALL, LC_MESSAGES, LANG.

    babel.default_locale() can answer en_US_POSIX on machines without generated
    locales, so the variables are read here directly.
    """
    env = os.environ if environ is None else environ
    candidates: list[str | None] = [explicit] if explicit else []
    candidates += [env.get(name) for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")]
    for value in candidates:
        if not value:
            continue
        for part in value.split(":"):
            code = part.split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
            if code in LANGUAGES:
                return code
            if code in ("c", "posix"):
                return "en"
    return "en"


def locale_dir() -> Path:
    return data_dir("locales")


def install(language: str | None = None) -> str:
    """Activate a language for this process; unknown ones fall back to English."""
    global _translation, _active
    code = detect_language(language)
    try:
        _translation = _gettext.translation(DOMAIN, localedir=str(locale_dir()), languages=[code])
    except OSError:
        _translation = _gettext.NullTranslations()
    _active = code
    return code
