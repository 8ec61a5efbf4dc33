"""What loading returns: a validated model and where it came from.

Kept apart from ``loader`` (and free of the models) so the dashboard can name these
types, and check ``isinstance``, before the models are imported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sparktui.config.models import Config
    from sparktui.config.recipe import Recipe
    from sparktui.config.source import SourceRef


@dataclass(frozen=True)
class LoadedConfig:
    config: Config
    source: SourceRef

    @property
    def builtin(self) -> bool:
        return self.source.path is None


@dataclass(frozen=True)
class LoadedRecipe:
    recipe: Recipe
    source: SourceRef
