"""Numbers, sizes, durations and dates for display, in the active language (babel).

babel costs ~50 ms to import and more to load a locale, so it is imported on the first
call, never at module import: the headless ``plan`` path and the first frame never pay.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from sparktui.i18n import active_language

_SIZE_UNITS = (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10))
_NBSP = "\u00a0"


def _pattern(digits: int, fixed: bool) -> str:
    return "#,##0" + ("." + ("0" if fixed else "#") * digits if digits else "")


def format_number(value: float, digits: int = 2, fixed: bool = False) -> str:
    """1234.5 -> "1,234.5" / "1 234,5"; up to ``digits`` decimals (exactly, when fixed)."""
    from babel.numbers import format_decimal

    return format_decimal(value, format=_pattern(digits, fixed), locale=active_language())


def format_optional(value: float | None, digits: int = 2) -> str:
    """A number, or "-" when there is none (a metric not scraped yet)."""
    return "-" if value is None else format_number(value, digits)


def format_percent(fraction: float) -> str:
    """0.423 -> "42%" / "42 %" (the locale's own pattern, spacing included)."""
    from babel.numbers import format_percent as _format_percent

    return _format_percent(fraction, locale=active_language())


def format_size(num_bytes: float, digits: int = 1) -> str:
    """Binary units: 1.5 * 2**30 -> "1.5 GiB" / "1,5 GiB"."""
    for unit, scale in _SIZE_UNITS:
        if abs(num_bytes) >= scale:
            return format_number(num_bytes / scale, digits, fixed=True) + _NBSP + unit
    return format_number(num_bytes, 0) + _NBSP + "B"


def format_size_of(done: float, total: float, digits: int = 1) -> str:
    """Progress in the total's unit, said once: "6.0/20.0 GiB" / "6,0/20,0 GiB"."""
    for unit, scale in _SIZE_UNITS:
        if abs(total) >= scale:
            return (format_number(done / scale, digits, fixed=True) + "/"
                    + format_number(total / scale, digits, fixed=True) + _NBSP + unit)
    return format_number(done, 0) + "/" + format_number(total, 0) + _NBSP + "B"


def format_gib(gib: float, digits: int = 1) -> str:
    """A size already in GiB, kept in GiB: 243.2 -> "243.2 GiB" / "243,2 GiB"."""
    return format_number(gib, digits, fixed=True) + _NBSP + "GiB"


def _unit(value: float, unit: str, length: Literal["short", "long", "narrow"],
          digits: int = 0) -> str:
    from babel.units import format_unit

    return format_unit(value, f"duration-{unit}", length=length, locale=active_language(),
                       format=_pattern(digits, False))


def format_seconds(seconds: float, digits: int = 1) -> str:
    """A short span kept in seconds (timeouts, elapsed): 2.5 -> "2.5 sec" / "2,5 с"."""
    return _unit(seconds, "second", "short", digits)


def format_ms(milliseconds: float) -> str:
    """Latency: 3.4 -> "3 ms" / "3 мс"."""
    return _unit(round(milliseconds), "millisecond", "short")


def format_duration(seconds: float) -> str:
    """An age or uptime, two units at most: "3d 4h", "4h 10m", "10m", "42s" in the locale."""
    secs = max(0, int(seconds))
    days, rest = divmod(secs, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        parts = [(days, "day"), (hours, "hour")]
    elif hours:
        parts = [(hours, "hour"), (minutes, "minute")]
    elif minutes:
        parts = [(minutes, "minute")]
    else:
        parts = [(secs, "second")]
    return " ".join(_unit(value, unit, "narrow") for value, unit in parts)


def format_datetime(when: float | datetime, length: str = "medium") -> str:
    """A timestamp (epoch seconds or datetime) in local time, in the locale's format."""
    from babel.dates import format_datetime as _format_datetime

    if not isinstance(when, datetime):
        when = datetime.fromtimestamp(when)
    if when.tzinfo is None:
        when = when.astimezone()
    return _format_datetime(when, format=length, tzinfo=when.tzinfo, locale=active_language())


def format_time(when: float | datetime) -> str:
    """Only the time of day: "22:13:20" / "10:13:20 PM"."""
    from babel.dates import format_time as _format_time

    if not isinstance(when, datetime):
        when = datetime.fromtimestamp(when)
    if when.tzinfo is None:
        when = when.astimezone()
    return _format_time(when, format="medium", tzinfo=when.tzinfo, locale=active_language())
