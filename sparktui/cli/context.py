"""Load what every engine command needs (config, recipes) from the global options, and
run one engine call: the one place the commands build an engine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from sparktui.config.discovery import find_config, find_recipe, recipe_dirs
from sparktui.config.loaded import LoadedConfig, LoadedRecipe
from sparktui.config.loader import load_config, load_recipe
from sparktui.config.models import Config
from sparktui.engine.api import ClusterControl, open_engine

T = TypeVar("T")


def config_from(args: argparse.Namespace) -> LoadedConfig:
    return load_config(find_config(args.config))


def recipes_dir_from(args: argparse.Namespace) -> Path:
    return recipe_dirs(args.recipes)


def recipe_from(args: argparse.Namespace, name: str) -> LoadedRecipe:
    return load_recipe(find_recipe(recipes_dir_from(args), name))


def with_engine(config: Config, call: Callable[[ClusterControl], Awaitable[T]]) -> T:
    """Run one engine call in its own event loop and close every connection after.

    Ctrl+C cancels the call and raises KeyboardInterrupt once it has cleaned up. The
    loop's own signal handler does it, which wakes the loop through its self-pipe on
    whichever thread the signal lands: ``asyncio.run``'s plain handler is only run at
    the main thread's next wake-up, and a Ctrl+C that Linux handed to a child-watcher
    thread left an idle ``logs -f`` or ``supervise`` running (seen under load)."""
    interrupted = False

    async def go() -> T:
        task = asyncio.current_task()

        def on_interrupt() -> None:
            nonlocal interrupted
            interrupted = True
            if task is not None:
                task.cancel()

        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            asyncio.get_running_loop().add_signal_handler(signal.SIGINT, on_interrupt)
        engine = open_engine(config)
        try:
            return await call(engine)
        finally:
            await engine.close()

    try:
        return asyncio.run(go())
    except asyncio.CancelledError:
        if interrupted:
            raise KeyboardInterrupt from None
        raise
