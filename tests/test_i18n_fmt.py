"""Numbers, sizes, durations and dates follow the active language (babel, loaded lazily)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from plan_support import subprocess_env

from sparktui import fmt
from sparktui.i18n import install

NBSP, NNBSP = "\u00a0", "\u202f"


@pytest.fixture
def lang() -> Iterator[object]:
    yield install
    install("en")


def _plain(text: str) -> str:
    return text.replace(NBSP, " ").replace(NNBSP, " ")


@pytest.mark.parametrize(("code", "number", "size", "duration", "ms"), [
    ("en", "1,234.57", "1.5 GiB", "3d 4h", "3 ms"),
    ("ru", "1 234,57", "1,5 GiB", "3 д. 4 ч", "3 мс"),
    ("de", "1.234,57", "1,5 GiB", "3 T 4h", "3 ms"),
    ("fr", "1 234,57", "1,5 GiB", "3j 4h", "3 ms"),
    ("es", "1.234,57", "1,5 GiB", "3d 4h", "3 ms"),
    ("it", "1.234,57", "1,5 GiB", "3gg 4h", "3 ms"),
])
def test_formats_per_language(lang, code, number, size, duration, ms) -> None:
    lang(code)
    assert _plain(fmt.format_number(1234.567)) == number
    assert _plain(fmt.format_size(1.5 * 2**30)) == size
    assert _plain(fmt.format_duration(3 * 86400 + 4 * 3600 + 59)) == duration
    assert _plain(fmt.format_ms(3.4)) == ms


def test_details_of_each_helper(lang) -> None:
    lang("en")
    assert fmt.format_optional(None) == "-" and fmt.format_optional(2.0) == "2"
    assert fmt.format_percent(0.423) == "42%"
    assert fmt.format_gib(243.25) == "243.2" + NBSP + "GiB"
    assert fmt.format_size(512) == "512" + NBSP + "B"
    assert fmt.format_duration(42) == "42s" and fmt.format_duration(610) == "10m"
    assert fmt.format_duration(-5) == "0s"
    assert fmt.format_seconds(2.5) == "2.5 sec"
    assert fmt.format_number(0.5, 2, fixed=True) == "0.50"
    when = datetime(2025, 6, 15, 15, 6, 40, tzinfo=UTC)
    assert fmt.format_datetime(when) == "Jun 15, 2025, 3:06:40" + NNBSP + "PM"
    lang("de")
    assert fmt.format_datetime(when) == "15.06.2025, 15:06:40"
    assert fmt.format_time(when) == "15:06:40"
    assert _plain(fmt.format_percent(0.423)) == "42 %"
    lang("ru")
    assert fmt.format_seconds(30) == "30 с"
    assert _plain(fmt.format_duration(4 * 3600 + 600)) == "4 ч 10 мин"


def test_importing_fmt_does_not_import_babel() -> None:
    code = "import sys, sparktui.fmt, sparktui.i18n\nprint('babel' in sys.modules)\n"
    proc = subprocess.run([sys.executable, "-c", code], env=subprocess_env(),
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.stdout.strip() == "False", proc.stderr
