"""The test session's own home: no test writes into the home of whoever runs the suite.

sparktui keeps state in its user's home: router keys (``$XDG_STATE_HOME/sparktui``),
benchmark runs (``$XDG_DATA_HOME/sparktui``), known hosts and config
(``~/.config/sparktui``), and a local node's supervision files and tmux logs (its shell's
``$HOME``). ``isolate()`` runs when tests/conftest.py is imported, before anything else
of a test process: ``HOME`` and every ``XDG_*_HOME`` point into a folder of this process
(each xdist worker its own), which every ``python -m sparktui`` a test starts inherits.
The real home's sparktui folders are listed first; ``changed()`` says what differs from
that listing (tests/test_home_isolated.py, and the session's end, check it).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

REAL_HOME = "SPARKTUI_TEST_REAL_HOME"
"""The home of whoever runs the tests (the first process of the session sets it)."""
LISTING = "SPARKTUI_TEST_REAL_HOME_LISTING"
"""A file with the real home's sparktui folders as they were when the session began."""
XDG = {"XDG_STATE_HOME": ".local/state", "XDG_DATA_HOME": ".local/share",
       "XDG_CONFIG_HOME": ".config", "XDG_CACHE_HOME": ".cache"}
WATCHED = (".local/state/sparktui", ".local/share/sparktui", ".config/sparktui",
           ".cache/sparktui")
"""Where sparktui writes under a home (the defaults of the XDG folders above)."""

_made: list[Path] = []


def listing(home: Path) -> dict[str, list[int]]:
    """Every file and folder under the home's sparktui folders: size and mtime (ns)."""
    found: dict[str, list[int]] = {}
    for top in WATCHED:
        root = home / top
        if not root.exists():
            continue
        for path in [root, *root.rglob("*")]:
            try:
                stat = path.lstat()
            except OSError:
                continue
            found[str(path.relative_to(home))] = [stat.st_size, stat.st_mtime_ns]
    return found


def isolate() -> Path:
    """Point this process's HOME and XDG folders at a new folder; returns it."""
    real = os.environ.get(REAL_HOME)
    if real is None:  # the session's first process: the home it was started with
        real = os.environ[REAL_HOME] = str(Path.home())
        # pip's own settings (an index, a wheel folder) stay in force in the new home
        pip_conf = Path(os.environ.get("XDG_CONFIG_HOME") or Path(real) / ".config") \
            / "pip" / "pip.conf"
        if pip_conf.is_file() and "PIP_CONFIG_FILE" not in os.environ:
            os.environ["PIP_CONFIG_FILE"] = str(pip_conf)
        home = Path(tempfile.mkdtemp(prefix="sparktui-test-home-"))
        saved = home / "real-home-listing.json"
        saved.write_text(json.dumps(listing(Path(real))))
        os.environ[LISTING] = str(saved)
    else:
        home = Path(tempfile.mkdtemp(prefix="sparktui-test-home-"))
    _made.append(home)
    os.environ["HOME"] = str(home)
    for name, sub in XDG.items():
        os.environ[name] = str(home / sub)
    no_hub()
    return home


NO_HUB = "http://127.0.0.1:9"
"""The Hub of a test that names none: loopback's discard port, where nothing listens."""


def no_hub() -> None:
    """No test reaches the real Hugging Face Hub (``sparktui fit`` asks it for a model in
    no node's cache, ``sparktui.engine.hub``): offline, and its address on loopback should
    a test lift that, and no token of whoever runs the suite. A test of the Hub
    (tests/hub_support.py) sets its own server's address and lifts the offline mode."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["HF_ENDPOINT"] = NO_HUB
    for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "TRANSFORMERS_OFFLINE", "HF_HOME",
                 "HF_TOKEN_PATH"):
        os.environ.pop(name, None)


def changed() -> list[str]:
    """What differs in the real home's sparktui folders since the session began."""
    real, saved = os.environ.get(REAL_HOME), os.environ.get(LISTING)
    if real is None or saved is None:
        return []
    try:
        before = json.loads(Path(saved).read_text())
    except (OSError, ValueError):
        return []
    now = listing(Path(real))
    return sorted(p for p in before.keys() | now.keys() if before.get(p) != now.get(p))


def clean_up() -> None:
    for home in _made:
        shutil.rmtree(home, ignore_errors=True)
