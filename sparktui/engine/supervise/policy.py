"""When to restart, when to wait and when to give up. Pure: numbers in, decisions out.

A failure is a check that failed ``failure_checks`` times in a row. The first restart of
a window comes at once; each further one waits ``backoff`` seconds, doubled every time up
to ``backoff_max``. ``max_restarts`` restarts in ``window`` seconds, and the next failure
is a give-up. A group that has never been healthy under this supervisor is never
restarted: whatever breaks it would break it again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sparktui.engine.supervise.record import Failure, Reason

if TYPE_CHECKING:
    from sparktui.config.models import Config

API_KINDS = frozenset({"health", "models", "stalled"})
"""Failures of the head's API (not of a container): a group may be loading."""


@dataclass(frozen=True)
class Policy:
    interval: float
    failure_checks: int
    max_restarts: int
    window: float
    backoff: float
    backoff_max: float
    lease: float
    stall: float
    ready_timeout: float
    memory_wait: float = 120.0

    @classmethod
    def from_config(cls, config: Config, interval: float | None = None) -> Policy:
        return cls(interval or config.supervise_interval_seconds,
                   config.supervise_failure_checks, config.supervise_max_restarts,
                   config.supervise_window_seconds, config.supervise_backoff_seconds,
                   config.supervise_backoff_max_seconds, config.supervise_lease_seconds,
                   config.telemetry_stall_seconds, config.ready_timeout_seconds,
                   config.supervise_memory_wait_seconds)

    @property
    def heartbeat(self) -> float:
        """How often the lease is renewed: several times within its lifetime."""
        return max(0.2, min(self.interval, self.lease / 4))


@dataclass(frozen=True)
class Restart:
    delay: float  # seconds to wait first


@dataclass(frozen=True)
class GiveUp:
    reason: Reason


def restarts_within(times: Sequence[float], now: float, window: float) -> int:
    return sum(1 for t in times if t > now - window)


def backoff_delay(policy: Policy, restarts_in_window: int) -> float:
    """Before the first restart of a window nothing; then backoff, doubling, capped."""
    if restarts_in_window <= 0:
        return 0.0
    return min(policy.backoff * 2 ** (restarts_in_window - 1), policy.backoff_max)


def decide(policy: Policy, restart_times: Sequence[float], now: float,
           ever_healthy: bool) -> Restart | GiveUp:
    """What to do about a failure confirmed now."""
    if not ever_healthy:
        return GiveUp(Reason("never_healthy"))
    count = restarts_within(restart_times, now, policy.window)
    if count >= policy.max_restarts:
        return GiveUp(Reason("too_many_restarts", {"restarts": count,
                                                   "window": policy.window}))
    return Restart(backoff_delay(policy, count))


def counts(failures: Sequence[Failure], *, ever_healthy: bool, since_armed: float,
           policy: Policy) -> bool:
    """Whether a failed check counts. Before the group was ever healthy, a head whose API
    does not answer yet may still be loading: that counts only once ``ready_timeout``
    has passed since the supervisor armed. A container that is gone always counts."""
    if ever_healthy or since_armed >= policy.ready_timeout:
        return bool(failures)
    return any(f.kind not in API_KINDS for f in failures)


class StallWatch:
    """A stall: requests wait and the generated-token counter does not move.

    ``update`` returns how long it has stalled once that reaches ``seconds``, else None.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._since: float | None = None
        self._tokens: float | None = None

    def update(self, now: float, waiting: float | None, generated: float | None) -> float | None:
        moved = (generated is not None and self._tokens is not None
                 and generated != self._tokens)
        if generated is not None:
            self._tokens = generated
        if not (waiting or 0) > 0:
            self._since = None
            return None
        if self._since is None or moved:
            self._since = now
            return None
        stalled = now - self._since
        return stalled if stalled >= self.seconds else None

    def reset(self) -> None:
        self._since = self._tokens = None
