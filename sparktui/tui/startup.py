"""The start-up: the first frame is painted before the config is validated.

Validating ``config.toml`` needs pydantic-core and our models, and the dashboard's screens,
the engine and its SSH library add more: together several times what Textual itself
costs to start. So ``sparktui`` first paints a skeleton of the dashboard with the
clusters and nodes read from the file with the standard library's TOML parser (a peek:
it never reports errors), then loads and validates the config in a thread, builds the
engine and swaps the real dashboard in (or the config error screen, exactly as before).

This module holds the plain part (the peek, the load, no Textual); the skeleton screen is
``sparktui.tui.screens.startup``, and the app swaps the screens.
"""

from __future__ import annotations

import asyncio
import gc
import socket
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from sparktui.config.discovery import find_config
from sparktui.config.loaded import LoadedConfig
from sparktui.config.toml_source import read_text
from sparktui.errors import SparkError
from sparktui.visible import shorten, visible

if TYPE_CHECKING:  # the engine's API loads after the first frame
    from sparktui.engine.api import ClusterControl

BUILTIN_CLUSTER = "local"
"""``sparktui.config.loader.LOCAL_CLUSTER``, named without importing the models."""

Clusters = tuple[tuple[str, tuple[str, ...]], ...]  # (cluster, its node names) in file order


@dataclass(frozen=True)
class PendingConfig:
    """A config the app loads after its first frame (``run_app``'s path)."""

    path: Path | None  # the file found, for the live reload's watch (None: built in)
    load: Callable[[], LoadedConfig]  # raises SparkError, shown on the config error screen
    connect: Callable[[LoadedConfig], ClusterControl]  # the engine for it
    clusters: Clusters = field(default=())


def pending_config(explicit: Path | None) -> PendingConfig:
    """Find the config like every command does; read only its cluster and node names."""
    try:
        path = find_config(explicit)
        clusters = peek_clusters(path)
    except SparkError:  # the load raises it again, and the error screen shows it
        path, clusters = None, ()

    def load() -> LoadedConfig:
        from sparktui.config.loader import load_config

        return load_config(find_config(explicit))

    return PendingConfig(path, load, connect_engine, clusters)


def connect_engine(loaded: LoadedConfig) -> ClusterControl:
    """The dashboard's engine. It opens no connection yet (nor imports asyncssh)."""
    from sparktui.engine.api import open_engine  # the API: after the first frame

    return open_engine(loaded.config)


def peek_clusters(path: Path | None) -> Clusters:
    """Cluster and node names as written in ``path`` (None: the built-in config); nothing
    when it does not parse. Only for the first frame: the validated load reports problems.
    """
    if path is None:  # the built-in config: this machine as a one-node cluster
        return ((BUILTIN_CLUSTER, (socket.gethostname() or "localhost",)),)
    try:  # bounded and never blocking: the config may be a FIFO or a huge file
        data = tomllib.loads(read_text(path).removeprefix("\ufeff"))
    except (SparkError, ValueError, RecursionError):
        return ()
    found = []
    clusters = data.get("clusters")
    for cluster in clusters if isinstance(clusters, list) else ():
        if not isinstance(cluster, dict) or not isinstance(cluster.get("name"), str):
            continue
        nodes = cluster.get("nodes")
        names = tuple(_shown(n["name"]) for n in (nodes if isinstance(nodes, list) else ())
                      if isinstance(n, dict) and isinstance(n.get("name"), str))
        found.append((_shown(cluster["name"]), names))
    return tuple(found)


def _shown(name: str) -> str:
    """A name from the unvalidated file, safe to paint (the load refuses bad ones)."""
    return shorten(visible(name), 64)


def load_pending(pending: PendingConfig) -> LoadedConfig | SparkError:
    """Runs in a thread: validate the config, then import what the dashboard needs."""
    try:
        config: LoadedConfig | SparkError = pending.load()
    except SparkError as exc:
        config = exc
    warm_imports()
    return config


GC_THRESHOLDS = (10_000, 10, 10)
"""The cyclic collector's thresholds for the dashboard's process (Python's: 700, 10, 10).

A followed log flood makes objects by the hundred thousand a second, nearly all freed by
their reference count. At 700 allocations the young generation was collected so often
that short-lived lines survived into the old one, and a full collection ran about twice a
second, each scanning every widget: under 50,000 lines/s that was 38 full collections in
20 s, up to 150 ms each, the p95 of a key press (benchmarks/bench_logs_pane.py). At
10,000 one ran in 15 s."""


def collect_less_often() -> None:
    """The dashboard's collector thresholds (``GC_THRESHOLDS``); headless commands keep
    Python's."""
    gc.set_threshold(*GC_THRESHOLDS)


def warm_imports() -> None:
    """Run in the loading thread, so the swap to the dashboard does not block the UI on
    imports (plain imports: the names stay visible to go-to-definition and mypy)."""
    import sparktui.tui.controllers.flows
    import sparktui.tui.screens.dashboard
    import sparktui.tui.screens.help  # noqa: F401
    from sparktui.engine.api import load_engine

    load_engine()  # the engine's implementation


async def finish_start(pending: PendingConfig) -> tuple[LoadedConfig | SparkError,
                                                        ClusterControl | None]:
    """The app's start-up worker, run once the first frame is on screen: the config (or
    why it does not load) and its engine."""
    if not gc.isenabled():  # the CLI paused the cyclic collector for the first frame;
        gc.freeze()  # what it loaded lives as long as the app: keep it out of collections
        gc.enable()
    config = await asyncio.to_thread(load_pending, pending)
    engine = pending.connect(config) if isinstance(config, LoadedConfig) else None
    return config, engine
