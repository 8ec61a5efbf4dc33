"""Sparklines and short figures as text: cheap enough to redraw every sample."""

from __future__ import annotations

from collections.abc import Sequence

BARS = "▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[float | None], width: int, *, lo: float | None = None,
              hi: float | None = None) -> str:
    """The last ``width`` values as bars, right-aligned; a missed sample is a blank.

    ``lo``/``hi`` fix the scale (0..100 for shares); otherwise the values set it.
    """
    if width <= 0:
        return ""
    tail = list(values[-width:])
    seen = [v for v in tail if v is not None]
    if not seen:
        return " " * width
    low = min(seen) if lo is None else lo
    high = max(seen) if hi is None else hi
    span = high - low
    out = []
    for v in tail:
        if v is None:
            out.append(" ")
        elif span <= 0:
            out.append(BARS[0] if v <= low else BARS[-1])
        else:
            share = min(1.0, max(0.0, (v - low) / span))
            out.append(BARS[min(len(BARS) - 1, int(share * (len(BARS) - 1) + 0.5))])
    return " " * (width - len(out)) + "".join(out)


def size(value: float | None) -> str:
    """Bytes as ``1.2T``/``35G``/``512M``."""
    if value is None:
        return "-"
    for unit, scale in (("T", 1 << 40), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if abs(value) >= scale:
            number = value / scale
            return f"{number:.1f}{unit}" if number < 10 else f"{number:.0f}{unit}"
    return f"{value:.0f}B"


def pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}%"


def rate(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value / 1000:.1f}k" if value >= 10_000 else f"{value:.0f}"


def millis(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds * 1000:.0f}ms" if seconds < 10 else f"{seconds:.0f}s"
