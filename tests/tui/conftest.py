"""Fixtures for the dashboard tests; the builders live in ``support``."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from sparktui.i18n import install
from sparktui.tui.app import SparkApp
from tui.support import BROKEN_RECIPE, RECIPES, make_app


@pytest.fixture(autouse=True)
def english():
    """Runtime strings in English whatever language an earlier test installed."""
    install("en")
    yield
    install("en")


@pytest.fixture
def utc(monkeypatch):
    """Times on screen print in local time: pin the zone so snapshots match anywhere
    (``pytestmark = pytest.mark.usefixtures("utc")``)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def app() -> SparkApp:
    return make_app()


@pytest.fixture
def broken_recipes(tmp_path: Path) -> Path:
    """Two good recipes from the repo and one that does not validate."""
    folder = tmp_path / "recipes"
    for name in ("gpt-oss-120b-sglang", "qwen3-235b-2node"):
        (folder / name).mkdir(parents=True)
        (folder / name / "recipe.toml").write_text(
            (RECIPES / name / "recipe.toml").read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "broken-engine").mkdir()
    (folder / "broken-engine" / "recipe.toml").write_text(BROKEN_RECIPE, encoding="utf-8")
    return folder
