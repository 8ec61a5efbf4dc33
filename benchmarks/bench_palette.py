"""The command palette with 30 recipes loaded: time to list its commands, per keystroke.

    python benchmarks/bench_palette.py [--recipes 30] [--rounds 20]

The dashboard runs headless (Textual's ``run_test``, 120x40) on ``examples/config.toml``
with N copies of the shipped recipes and the first one selected. Then, as the palette does
when the operator types "serve" one letter at a time: it opens (a fresh provider; its
``startup``), then one ``search`` per prefix, each run to its last hit. Printed: the
median time of the opening and of a keystroke over the rounds. Every round makes a new
provider, so nothing is kept from one round to the next.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sparktui.config.loader import load_config  # noqa: E402
from sparktui.tui.app import create_app  # noqa: E402
from sparktui.tui.commands import SparkCommands  # noqa: E402
from sparktui.tui.options import TuiOptions  # noqa: E402

QUERY = "serve"


def recipes_folder(folder: Path, count: int) -> Path:
    shipped = sorted(p for p in (ROOT / "recipes").iterdir() if (p / "recipe.toml").is_file())
    for i in range(count):
        source = shipped[i % len(shipped)]
        shutil.copytree(source, folder / f"{source.name}-{i:02d}")
    return folder


async def measure(recipes: Path, rounds: int) -> tuple[list[float], list[float], int]:
    app = create_app(load_config(ROOT / "examples" / "config.toml"), recipes, None, False,
                     options=TuiOptions(clock=lambda: 1_750_000_000.0, cursor_blink=False,
                                        animations=False))
    opening: list[float] = []
    keystroke: list[float] = []
    hits = 0
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.dashboard is not None and app.dashboard.selected_entry() is not None
        for _ in range(rounds):
            start = time.perf_counter()
            provider = SparkCommands(app.screen)
            provider._post_init()  # as Textual's palette opens a provider: startup()
            await provider._wait_init()
            opening.append(time.perf_counter() - start)
            for end in range(1, len(QUERY) + 1):
                start = time.perf_counter()
                found = [hit async for hit in provider.search(QUERY[:end])]
                keystroke.append(time.perf_counter() - start)
                hits = len(found)
    return opening, keystroke, hits


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recipes", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        recipes = recipes_folder(Path(tmp), args.recipes)
        opening, keystroke, hits = asyncio.run(measure(recipes, args.rounds))
    print(f"palette, {args.recipes} recipes, {args.rounds} rounds of typing {QUERY!r}:")
    print(f"  open (provider startup)       {statistics.median(opening) * 1000:8.3f} ms median")
    print(f"  one keystroke (search)        {statistics.median(keystroke) * 1000:8.3f} ms median"
          f"  ({hits} hits for {QUERY!r})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
