"""A pull's bytes per node, as the dashboard's progress view shows them: how far, how
fast, how long still.

The engine reports what it measured (``Transfer``: bytes done of bytes needed); rate and
time left are the viewer's reading of successive reports over a short window, with the
app's clock (fixed in snapshot tests), so a stalled copy shows its rate falling to zero
instead of its last burst.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from sparktui.engine.api import PullKind, Transfer

WINDOW_SECONDS = 5.0
"""Rate over the last few seconds: long enough to smooth docker's and rsync's bursts."""


@dataclass
class TransferSeen:
    """One node's transfer of one kind: its latest report and the recent samples."""

    latest: Transfer
    samples: deque[tuple[float, int]] = field(default_factory=deque)

    def add(self, transfer: Transfer, now: float) -> None:
        self.latest = transfer
        self.samples.append((now, transfer.done))
        while len(self.samples) > 2 and now - self.samples[0][0] > WINDOW_SECONDS:
            self.samples.popleft()

    @property
    def finished(self) -> bool:
        return self.latest.done >= self.latest.total

    def rate(self, now: float) -> float | None:
        """Bytes per second over the window up to ``now`` (None: not measured yet)."""
        if self.finished or len(self.samples) < 2:
            return None
        first_t, first_done = self.samples[0]
        span = now - first_t
        return max(0, self.latest.done - first_done) / span if span > 0 else None

    def left_seconds(self, now: float) -> float | None:
        rate = self.rate(now)
        if not rate:
            return None
        return (self.latest.total - self.latest.done) / rate


@dataclass
class TransferBoard:
    """Every node's transfers of a run, in the order they first appeared."""

    seen: dict[tuple[PullKind, str], TransferSeen] = field(default_factory=dict)

    def add(self, transfer: Transfer, now: float) -> None:
        key = (transfer.kind, transfer.node)
        if key in self.seen:
            self.seen[key].add(transfer, now)
        else:
            row = TransferSeen(transfer)
            row.add(transfer, now)
            self.seen[key] = row

    def rows(self) -> list[TransferSeen]:
        return list(self.seen.values())

    def totals(self) -> tuple[int, int]:
        """Bytes done and needed over every node and kind."""
        rows = self.rows()
        return sum(r.latest.done for r in rows), sum(r.latest.total for r in rows)
