"""What one run of the dashboard holds, whatever screen is up: plain Python, no Textual.

* :attr:`Session.config` is the one state of the config (:data:`ConfigState`): a
  :class:`PendingConfig` until the start-up load is done, then the :class:`LoadedConfig`
  or the :class:`SparkError` that stops it. Callers ask :attr:`~Session.loaded` or
  :attr:`~Session.pending` instead of testing its type.
* The session is given the engine as a ``ClusterControl`` (or None). :attr:`Session.engine`
  is what the read workers call: in ``--watch`` mode only ever a :class:`ReadOnlyView` of
  it; :meth:`~Session.control` hands the engine out to the app's safety gate, never in
  ``--watch``. Which one a caller gets is decided by the mode, never by asking the object
  what methods it has.
* A reload that changed the config rebuilds the engine (:meth:`~Session.reload`); the old
  one is retired and closed once no action holds it (:meth:`~Session.to_close`).
* :attr:`Session.file_watch` notices edits to the config file and the recipes.

The app (``sparktui.tui.app``) owns one session and gives it to the screens and the
controllers; it runs the workers, the session says what they read.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from sparktui.config.loaded import LoadedConfig
from sparktui.errors import SparkError
from sparktui.tui.live import FileWatch, config_path
from sparktui.tui.options import TuiOptions
from sparktui.tui.startup import PendingConfig

if TYPE_CHECKING:  # the models load after the first frame
    from sparktui.config.models import Config
    from sparktui.engine.api import ClusterControl, ClusterView

ConfigState = LoadedConfig | SparkError | PendingConfig
"""Loading after the first frame, loaded, or broken (the error screen shows why)."""

EngineFactory = Callable[[LoadedConfig], "ClusterControl"]
"""Builds the engine for a config: again when a reload changed the config."""

ENGINE_CLOSE_SECONDS = 5.0


async def close_engine(engine: ClusterView) -> None:
    """Close an engine, bounded: a hung connection must not hold the app open."""
    from sparktui.engine.api import within

    with contextlib.suppress(Exception):
        await within(engine.close(), ENGINE_CLOSE_SECONDS)


class Session:
    def __init__(self, config: ConfigState, recipes_dir: Path,
                 engine: ClusterControl | None, *, watch_mode: bool,
                 options: TuiOptions, reload_config: Callable[[], LoadedConfig] | None = None,
                 engine_factory: EngineFactory | None = None) -> None:
        self.config: ConfigState = config
        self.recipes_dir = recipes_dir
        self.copy_offered = False  # m/d on a shipped example: asked once, copied on the next
        self.watch_mode = watch_mode
        self.options = options
        self._reload_config = reload_config
        self._engine_factory = engine_factory or (config.connect if isinstance(
            config, PendingConfig) else None)
        self.engine: ClusterView | None = None
        self._control: ClusterControl | None = None  # None in --watch
        self._built_for: Config | None = None  # the config the engine was built for
        self._retired: list[ClusterView] = []  # engines of an older config, to close
        self._hold(engine, self.loaded)
        self.file_watch = FileWatch(config.path if isinstance(config, PendingConfig)
                                    else config_path(config), recipes_dir)

    def use_recipes(self, directory: Path) -> None:
        """Read (and watch) the recipes in ``directory`` from now on."""
        self.recipes_dir = self.file_watch.recipes_dir = directory
        self.file_watch.seen()

    # -- the config's state -----------------------------------------------------------------

    @property
    def loaded(self) -> LoadedConfig | None:
        """The validated config (None while it loads, or when it is broken)."""
        return self.config if isinstance(self.config, LoadedConfig) else None

    @property
    def pending(self) -> PendingConfig | None:
        """The config the start-up still loads (None once it is loaded or broken)."""
        return self.config if isinstance(self.config, PendingConfig) else None

    @property
    def error(self) -> SparkError | None:
        """Why the config does not load (None when it loads)."""
        return self.config if isinstance(self.config, SparkError) else None

    @property
    def can_reload(self) -> bool:
        return self._reload_config is not None

    @property
    def telemetry_interval(self) -> float | None:
        """Seconds between telemetry samples (None: no config, no sampling)."""
        loaded = self.loaded
        return loaded.config.telemetry_interval_seconds if loaded is not None else None

    def started(self, config: LoadedConfig | SparkError,
                engine: ClusterControl | None) -> None:
        """The start-up load is done: its config (or why not) and the engine for it."""
        self.config = config
        self._hold(engine, self.loaded)

    def reload(self) -> ClusterView | None:
        """Load the config again (raises SparkError and keeps the state it had); a changed
        config gets a new engine. Returns the engine it replaced (None: kept or none)."""
        assert self._reload_config is not None
        loaded = self._reload_config()
        self.config = loaded
        return self._rebuild_engine(loaded)

    def broke(self, error: SparkError) -> None:
        """The config no longer loads: the error screen shows why."""
        self.config = error

    # -- the engine -------------------------------------------------------------------------

    def control(self) -> ClusterControl | None:
        """The engine as a ``ClusterControl`` (None in ``--watch`` or without an engine).
        Only the app's safety gate calls this."""
        return self._control

    def _hold(self, engine: ClusterControl | None, built_for: LoadedConfig | None) -> None:
        """Hold ``engine``: in ``--watch`` only a view of it, and no control."""
        self._built_for = built_for.config if engine is not None and built_for else None
        if engine is None:
            self._control = self.engine = None
        elif self.watch_mode:
            from sparktui.engine.api import ReadOnlyView

            self._control = None
            self.engine = ReadOnlyView(engine)
        else:
            self._control = self.engine = engine

    def _rebuild_engine(self, config: LoadedConfig) -> ClusterView | None:
        """A new engine for a changed config (a new cluster, node, timeout or key)."""
        if self._engine_factory is None:
            return None
        old = self.engine
        if old is not None and self._built_for == config.config:
            return None
        self._hold(self._engine_factory(config), config)
        if old is not None:
            self._retired.append(old)
        return old

    def to_close(self, busy: bool) -> list[ClusterView]:
        """Retired engines to close now: none while an action (``busy``) may hold one."""
        if busy or not self._retired:
            return []
        retired, self._retired = self._retired, []
        return retired

    def engines(self) -> list[ClusterView]:
        """Every engine still open (the retired ones and the current one), for the exit."""
        return [*self._retired, *([self.engine] if self.engine is not None else [])]
