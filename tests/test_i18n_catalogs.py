"""The catalogs under locales/ match the source: nothing missing, stale, fuzzy or broken.

When this fails after adding strings: ``python -m sparktui.i18n_catalogs update``, translate
the new entries (``todo`` lists them, ``fill`` writes them; see locales/GLOSSARY.md), and
run ``update`` again so the .mo files follow.
"""

from __future__ import annotations

import gettext
import shutil
import textwrap
from pathlib import Path

import pytest

from sparktui import i18n
from sparktui.i18n import LANGUAGES, install, ngettext
from sparktui.i18n_catalogs import LOCALES, check, fill, mo_path, placeholders, todo, update


def test_every_catalog_is_complete_and_current() -> None:
    """Extracts the messages from the source: any missing, stale or fuzzy entry, a
    placeholder lost or invented in a translation, or a .mo older than its .po fails."""
    problems = check()
    assert not problems, f"{len(problems)} catalog problems:\n" + "\n".join(problems[:40])


@pytest.fixture
def mini(tmp_path: Path) -> tuple[Path, Path]:
    """A two-message source tree and its catalogs, made by update()."""
    source = tmp_path / "src" / "pkg"
    source.mkdir(parents=True)
    (source / "a.py").write_text(textwrap.dedent("""\
        from sparktui.i18n import _, ngettext
        _("node {node} is down")
        ngettext("{n} node", "{n} nodes", 2)
    """), encoding="utf-8")
    locales = tmp_path / "locales"
    update(locales, source)
    return locales, source


def test_update_creates_every_language_and_is_idempotent(mini: tuple[Path, Path]) -> None:
    locales, source = mini
    for lang in LANGUAGES:
        assert mo_path(lang, locales).exists()
    before = {p: p.read_bytes() for p in locales.rglob("*") if p.is_file()}
    assert update(locales, source) == []
    assert before == {p: p.read_bytes() for p in locales.rglob("*") if p.is_file()}
    problems = check(locales, source)
    assert "ru: untranslated or fuzzy 'node {node} is down'" in problems
    assert not [p for p in problems if p.startswith("en:")]  # English fills itself


def test_check_names_missing_stale_fuzzy_and_placeholders(mini: tuple[Path, Path]) -> None:
    locales, source = mini
    fill({"de": {"node {node} is down": "Knoten {name} ist aus",
                 "{n} node": ["{n} Knoten", "Knoten"]}}, locales)
    problems = check(locales, source, ["de"])
    assert any("['{name}'] instead of ['{node}']" in p for p in problems)
    assert any("['{n}']" in p and "'Knoten'" in p for p in problems)
    fill({"de": {"node {node} is down": "Knoten {node} ist aus",
                 "{n} node": ["{n} Knoten", "{n} Knoten"]}}, locales)
    assert check(locales, source, ["de"]) == []

    (source / "a.py").write_text('from sparktui.i18n import _\n_("node {node} is up")\n',
                                 encoding="utf-8")
    problems = check(locales, source, ["de"])
    assert "de: missing 'node {node} is up'" in problems
    assert "de: stale 'node {node} is down'" in problems
    update(locales, source)  # a close old translation comes back fuzzy: still missing
    assert "de: untranslated or fuzzy 'node {node} is up'" in check(locales, source, ["de"])
    assert "node {node} is up" in todo(locales)["de"]


def test_placeholders_of_both_styles() -> None:
    assert placeholders("{node}: {s:g} s, %(n)s and {{literal}}") == ["%(n)s", "{node}", "{s:g}"]
    assert placeholders("{unbalanced") == ["<unbalanced braces>"]


@pytest.mark.parametrize(("lang", "forms"), [
    ("en", {1: "1 node", 2: "2 nodes", 5: "5 nodes", 21: "21 nodes"}),
    ("ru", {1: "1 узел", 2: "2 узла", 5: "5 узлов", 21: "21 узел", 12: "12 узлов"}),
    ("de", {1: "1 Knoten", 2: "2 Knoten"}),
    ("fr", {1: "1 nœud", 2: "2 nœuds"}),
    ("es", {1: "1 nodo", 2: "2 nodos"}),
    ("it", {1: "1 nodo", 2: "2 nodi"}),
])
def test_plural_forms_per_language(lang: str, forms: dict[int, str]) -> None:
    install(lang)
    try:
        for n, text in forms.items():
            assert ngettext("{n} node", "{n} nodes", n).format(n=n) == text
    finally:
        install("en")


def test_russian_has_three_plural_forms() -> None:
    with mo_path("ru").open("rb") as fh:
        catalog = gettext.GNUTranslations(fh)
    assert "nplurals=3" in catalog.info()["plural-forms"]


# Words a language shares with English (names, units, loanwords): everything else that
# reads exactly like its msgid is English left behind. Extend only with real cognates.
COMMON = {"/health", "KV", "Tmux", "tmux", "exec", "ssh", "swap", "env:", "TTFT p95 ms", "TTFT p95",
          "p50 {t}", "{name} ({type}, {recipe}): {state}", "pool {name}", "{count} pool {name}",
          "{rate} tok/s", "after_stop", "shell",
          # sparktui bench: units and figures' names, the same in every language
          "E2E s p50/p90/p99", "ITL ms p50/p90/p99", "TTFT ms p50/p90/p99", "req/s", "tok/s",
          "ok", "TTFT p50 ms", "Benchmark", "docker",
          "{size}/s",  # sparktui pull: a transfer rate
          "{node}: {kind} ({detail})"}  # a failure of a kind unknown here: punctuation only
SAME_AS_ENGLISH = {
    "ru": set(),
    "es": {"total", "4 Plan", "Plan", "plan", "error", "fabric", "kernel", "local", "no", "script",
           "terminal", "{node}: kernel: {line}", "hooks", "%(prog)s: error: %(message)s\n",
           "{prog}: error: {message}", "supervisor: {line}", "router", "conc", "benchmark"},
    "it": {"  frontend: {frontend}", "Cluster: {name}", "cluster", "cluster {cluster}: {state}",
           "container", "fabric", "file", "kernel", "no", "script", "server {version}",
           "{node}: kernel: {line}", "rollback", "router", "conc", "benchmark",
           "Screenshot", "job"},
    "fr": {"total", "  image {image}", "1 Clusters", "4 Plan", "6 Services", "Actions", "Plan",
           "cluster",
           "clusters", "fabric", "image", "local", "plan", "port", "script", "service",
           "services", "terminal", "hooks", "options", "supervision", "conc", "benchmark",
           "job"},
    "de": {"4 Plan", "5 Logs", "Cluster: {name}", "Details", "Filter", "Logs", "Plan"},
}


@pytest.mark.parametrize("lang", sorted(SAME_AS_ENGLISH))
def test_no_english_left_in_the_translations(lang: str) -> None:
    with mo_path(lang).open("rb") as fh:
        catalog = gettext.GNUTranslations(fh)
    same = sorted(k for k, v in catalog._catalog.items()
                  if isinstance(k, str) and k and k == v)
    assert set(same) <= COMMON | SAME_AS_ENGLISH[lang], \
        f"{lang}: left in English: {sorted(set(same) - COMMON - SAME_AS_ENGLISH[lang])}"


def test_unknown_language_falls_back_to_english_quietly() -> None:
    try:
        assert install("xx") == "en"
        assert i18n._("the config defines no clusters") == "the config defines no clusters"
    finally:
        install("en")


@pytest.mark.parametrize(("explicit", "env", "expected"), [
    ("de", {"LANG": "fr_FR.UTF-8"}, "de"),
    (None, {"LANG": "fr_FR.UTF-8"}, "fr"),
    (None, {"LC_ALL": "ru_RU.UTF-8", "LANG": "fr_FR.UTF-8"}, "ru"),
    (None, {"LC_MESSAGES": "it_IT", "LANG": "es_ES.UTF-8"}, "it"),
    (None, {"LANGUAGE": "es:fr", "LANG": "de_DE.UTF-8"}, "es"),
    (None, {"LANG": "pt_BR.UTF-8"}, "en"),
    (None, {"LC_ALL": "C", "LANG": "de_DE.UTF-8"}, "en"),
    (None, {}, "en"),
    ("xx", {"LANG": "de_DE.UTF-8"}, "de"),
])
def test_detect_language(explicit: str | None, env: dict[str, str], expected: str) -> None:
    assert i18n.detect_language(explicit, env) == expected


def test_catalogs_live_where_the_runtime_looks() -> None:
    assert i18n.locale_dir().resolve() in (LOCALES.resolve(),
                                           Path(i18n.__file__).parent / "_data" / "locales")
    for lang in LANGUAGES:
        assert (i18n.locale_dir() / lang / "LC_MESSAGES" / "sparktui.mo").is_file()


def test_update_on_a_copy_of_the_real_catalogs_changes_nothing(tmp_path: Path) -> None:
    """What the lead commits is what update produces: running it again is a no-op."""
    copy = tmp_path / "locales"
    shutil.copytree(LOCALES, copy)
    assert update(copy) == []
