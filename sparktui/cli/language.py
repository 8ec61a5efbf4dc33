"""``--lang``: only a language a catalog is shipped for (locales/<lang>/LC_MESSAGES);
any other was once taken silently, and the CLI spoke English to it."""

from __future__ import annotations

import sys

from sparktui.i18n import DOMAIN, _, install, locale_dir


def known_languages() -> list[str]:
    """The languages of the shipped catalogs (the wheel's, or the checkout's locales/)."""
    return sorted(p.parent.parent.name for p in locale_dir().glob(f"*/LC_MESSAGES/{DOMAIN}.mo"))


def language_code(value: str) -> str:
    """``ru``, ``ru_RU.UTF-8``, ``de-DE``: the language's own code."""
    return value.split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()


def refuse_language(lang: str | None) -> bool:
    """True (and said, in the environment's language) when ``lang`` is none we ship."""
    if lang is None or language_code(lang) in known_languages():
        return False
    install(None)
    print(_("sparktui: error: unknown language '{lang}' for --lang (known: {known})")
          .format(lang=lang, known=", ".join(known_languages())), file=sys.stderr)
    return True
