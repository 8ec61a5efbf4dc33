"""doctor's text: translated statuses, check names and hint, columns by display width."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from sparktui.engine.doctor import Check
from sparktui.i18n import _, install
from sparktui.present.doctor import doctor_lines

CHECKS = [Check("spark1", "ssh", "pass", "1 ms"),
          Check("spark1", "nic enp1s0f1np1", "fail", "down", "plug the QSFP cable in"),
          Check("spark-long-name", "memory", "warn", "2 GiB available"),
          Check("*", "image nvcr.io/nvidia/vllm:25.10-py3", "pass", "sha256:1234")]


@pytest.fixture(params=["en", "ru", "de"])
def lang(request: pytest.FixtureRequest):
    install(request.param)
    yield request.param
    install("en")


def test_columns_line_up_and_every_word_is_translated(lang: str) -> None:
    lines = [line for text in doctor_lines(CHECKS) for line in text.splitlines()]
    checks = [line for line in lines if not line.lstrip().startswith(_("hint"))]
    details = [c.detail for c in CHECKS]
    starts = {cell_len(line[:line.rindex(detail)]) for line, detail in zip(checks, details,
                                                                          strict=True)}
    assert len(starts) == 1, "\n".join(lines)  # the details start in one column
    hint = next(line for line in lines if line.lstrip().startswith(_("hint") + ":"))
    assert hint.endswith("plug the QSFP cable in")
    assert _("memory") in checks[2] and (_("nic") + " enp1s0f1np1") in checks[1]
    if lang == "ru":
        assert "hint" not in hint and "memory" not in checks[2] and "FAIL" not in checks[1]
