"""The dashboard and the stop confirmation in Russian and German (the longest strings), 120x40.

Binding descriptions are translated when their module is imported, so each test imports
sparktui's modules afresh under its language and puts the English ones back afterwards.
Besides the snapshots, the screen text is checked for the full labels: nothing cut off.
Update only these with: python -m pytest tests/tui/test_snapshots_i18n.py --snapshot-update
"""

from __future__ import annotations

import html
import importlib
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import pytest
from textual.app import App
from textual.pilot import Pilot

from sparktui.i18n import install

SMALL = (120, 40)
KEEP = {"sparktui", "sparktui.i18n", "sparktui.resources"}
PACKAGES = ("sparktui", "tui")  # parents whose submodule attributes the re-import replaces


def _fresh(name: str) -> bool:
    return (name.startswith("sparktui.") and name not in KEEP) or name.startswith("tui.")


@contextmanager
def language(code: str) -> Iterator[ModuleType]:
    """Import sparktui (and the test support) anew with ``code`` installed."""
    saved = dict(sys.modules)
    attrs = {p: dict(vars(sys.modules[p])) for p in PACKAGES if p in sys.modules}
    for name in [n for n in sys.modules if _fresh(n)]:
        del sys.modules[name]
    install(code)
    try:
        yield importlib.import_module("tui.support")
    finally:
        for name in [n for n in sys.modules if n not in saved and _fresh(n)]:
            del sys.modules[name]  # only ours: babel's classes must stay the ones its caches hold
        sys.modules.update(saved)
        for package, values in attrs.items():
            vars(sys.modules[package]).clear()
            vars(sys.modules[package]).update(values)
        install("en")


@pytest.fixture(params=["ru", "de"])
def lang(request: pytest.FixtureRequest) -> Iterator[tuple[str, ModuleType]]:
    with language(request.param) as support:
        yield request.param, support


def _with_health(support: ModuleType):
    from sparktui.tui.messages import HealthUpdated

    async def run_before(pilot: Pilot) -> None:
        pilot.app.dashboard.post_message(HealthUpdated(support.serving_health()))
        await _settle(pilot)
    return run_before


def _confirm(support: ModuleType) -> App:
    from sparktui.i18n import _
    from sparktui.tui import app as app_module
    from sparktui.tui.screens.confirm import ConfirmRequest, ConfirmScreen

    class Host(App[None]):
        CSS_PATH = Path(app_module.__file__).with_name("app.tcss")

        def on_mount(self) -> None:
            self.animation_level = "none"
            self.push_screen(ConfirmScreen(request))

    async def check():
        return support.serving_health()

    request = ConfirmRequest(
        title=_("Stop cluster {cluster}").format(cluster="2nodes"), verb=_("Stop"),
        cluster="2nodes",
        what=_("Removes every sparktui container and tmux session of {cluster} on its "
               "nodes (heads first), then runs the recipes' after_stop hooks. Below is "
               "what the nodes answer right now; ✖ marks what will be removed.").format(
            cluster="2nodes"), check=check)
    return Host()


async def _settle(pilot: Pilot) -> None:
    await pilot.pause(0.3)


SNAPSHOTS = Path(__file__).parent / "__snapshots__" / Path(__file__).stem


def _screen_text(request: pytest.FixtureRequest) -> str:
    """The snapshot just compared, as plain text, one line per terminal row ("" while
    --snapshot-update writes it: the files appear at the end of the session)."""
    path = SNAPSHOTS / f"{request.node.name}.svg"
    if request.config.getoption("--snapshot-update"):
        return ""
    svg = path.read_text(encoding="utf-8")
    rows: dict[str, list[tuple[float, str]]] = {}
    for match in re.finditer(r'<text[^>]*x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        x, y, body = match.groups()
        rows.setdefault(y, []).append((float(x), html.unescape(body).replace("\xa0", " ")))
    return "\n".join("".join(t for _x, t in sorted(parts))
                     for _y, parts in sorted(rows.items(), key=lambda kv: float(kv[0])))


def _expect_whole(text: str, labels: list[str]) -> None:
    if not text:
        return
    missing = [label for label in labels if label not in text]
    assert not missing, f"cut off or missing: {missing}\n{text}"


def test_dashboard_translated_120x40(snap_compare, lang, request) -> None:
    code, support = lang
    from sparktui.i18n import _

    assert snap_compare(support.make_app(), terminal_size=SMALL,
                        run_before=_with_health(support))
    text = _screen_text(request)
    panes = [_("1 Clusters"), _("2 Recipes"), _("3 Nodes"), _("4 Plan"), _("5 Logs")]
    footer = [_("Serve"), _("Stop"), _("Quit"), _("Help"), _("Refresh"), _("Exec"), _("Tmux"),
              _("Power"), _("Commands")]
    _expect_whole(text, [*panes, *footer, _("serving")])
    assert not text or ("Кластеры" if code == "ru" else "Rezepte") in text


def test_confirm_stop_translated_120x40(snap_compare, lang, request) -> None:
    code, support = lang
    from sparktui.i18n import _

    assert snap_compare(_confirm(support), terminal_size=SMALL, run_before=_settle)
    text = _screen_text(request)
    _expect_whole(text, [_("Stop cluster {cluster}").format(cluster="2nodes"), _("Cancel"),
                         _("Stop"), _("reachable")])
    assert not text or ("ОБСЛУЖИВАЕТ" if code == "ru" else "STELLT BEREIT") in text
