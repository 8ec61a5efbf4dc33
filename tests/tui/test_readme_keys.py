"""The README's key table is the dashboard's own help (``help_rows``): a key added,
renamed or taken away fails here until the README says the same."""

from __future__ import annotations

from pathlib import Path

from sparktui.tui.screens.help import help_rows
from tui.support import make_app

README = Path(__file__).resolve().parents[2] / "README.md"


def key_table(rows: list[tuple[str, str, str]]) -> str:
    lines = ["| pane | keys | what it does |", "| --- | --- | --- |"]
    for group, keys, text in rows:
        shown = " ".join(f"`{k}`" for k in keys.replace("|", "\\|").split(" "))
        lines.append(f"| {group} | {shown} | {text} |")
    return "\n".join(lines) + "\n"


async def test_the_readme_lists_every_key_of_the_dashboard():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        table = key_table(help_rows(app, app.dashboard))
    assert table in README.read_text(encoding="utf-8"), "README.md's key table:\n" + table
