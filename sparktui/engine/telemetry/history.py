"""The last minutes of every figure, in bounded rings: pure, no I/O.

One ring per series ("spark1.cpu", "engine.gen_tps"); each holds ``(time, value)``
pairs and forgets the oldest once full, so a dashboard left on a wall for a month
keeps the same memory as one opened a minute ago.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

HISTORY_SECONDS = 15 * 60


def capacity_for(interval: float, seconds: float = HISTORY_SECONDS) -> int:
    """How many samples ``seconds`` of history at ``interval`` need (at least 2)."""
    return max(2, int(seconds / max(interval, 0.05)) + 1)


class Ring:
    """``(t, value)`` pairs, oldest first; ``None`` values mark a missed sample."""

    __slots__ = ("_items",)

    def __init__(self, capacity: int) -> None:
        self._items: deque[tuple[float, float | None]] = deque(maxlen=capacity)

    def add(self, t: float, value: float | None) -> None:
        self._items.append((t, value))

    @property
    def capacity(self) -> int:
        return self._items.maxlen or 0

    def __len__(self) -> int:
        return len(self._items)

    def values(self) -> tuple[float | None, ...]:
        return tuple(v for _, v in self._items)

    def since(self, t: float) -> list[tuple[float, float | None]]:
        return [(at, v) for at, v in self._items if at >= t]

    def last(self) -> float | None:
        return self._items[-1][1] if self._items else None


class History:
    """Rings by series name, all with one capacity; unknown series start empty."""

    def __init__(self, interval: float, seconds: float = HISTORY_SECONDS) -> None:
        self.capacity = capacity_for(interval, seconds)
        self._rings: dict[str, Ring] = {}

    def add(self, t: float, values: dict[str, float | None]) -> None:
        for name, value in values.items():
            ring = self._rings.get(name)
            if ring is None:
                ring = self._rings[name] = Ring(self.capacity)
            ring.add(t, value)

    def ring(self, name: str) -> Ring | None:
        return self._rings.get(name)

    def names(self) -> Iterable[str]:
        return self._rings.keys()

    def snapshot(self) -> dict[str, tuple[float | None, ...]]:
        """Plain tuples, safe to hand to another task or thread."""
        return {name: ring.values() for name, ring in self._rings.items()}
