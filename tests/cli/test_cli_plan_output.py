"""``plan -o FILE`` writes to what FILE is: the target of a link, a FIFO's reader, a
device; an existing file keeps its mode; a folder or a missing parent folder is refused."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest
from plan_support import EXAMPLE_CONFIG, RECIPES

from sparktui.cli import main

BASE = ["--lang", "en", "--config", str(EXAMPLE_CONFIG), "--recipes", str(RECIPES), "plan",
        "qwen3-235b-2node", "-f", "sh", "-o"]


def _plan_to(capsys, target: Path | str) -> tuple[int, str]:
    code = main([*BASE, str(target)])
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    return code, err


def test_a_symlink_stays_a_link_and_its_target_gets_the_plan(tmp_path: Path, capsys) -> None:
    real = tmp_path / "real.sh"
    real.write_text("old\n")
    real.chmod(0o600)
    link = tmp_path / "launch.sh"
    link.symlink_to(real)
    assert _plan_to(capsys, link) == (0, "")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text().startswith("#!/bin/sh\n")
    assert stat.S_IMODE(real.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["launch.sh", "real.sh"]


def test_an_existing_file_keeps_its_mode(tmp_path: Path, capsys) -> None:
    target = tmp_path / "launch.sh"
    target.write_text("old\n")
    target.chmod(0o600)
    assert _plan_to(capsys, target) == (0, "")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert target.read_text().startswith("#!/bin/sh\n")


def test_a_fifo_reader_gets_the_plan(tmp_path: Path, capsys) -> None:
    fifo = tmp_path / "plan.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as handle:
            got.append(handle.read())

    reader = threading.Thread(target=read)
    reader.start()
    assert _plan_to(capsys, fifo) == (0, "")
    reader.join(timeout=30)
    assert got and got[0].startswith(b"#!/bin/sh\n")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still a FIFO, not a file in its place


def test_dev_null_is_written_to_not_replaced(capsys) -> None:
    before = os.stat("/dev/null")
    assert _plan_to(capsys, "/dev/null") == (0, "")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_a_full_device_is_a_message(capsys) -> None:
    code, err = _plan_to(capsys, "/dev/full")
    assert code == 2 and err == "/dev/full: cannot write: No space left on device\n"
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_folder_is_refused(tmp_path: Path, capsys) -> None:
    assert _plan_to(capsys, tmp_path) == (
        2, f"{tmp_path}: is a folder; name a file to write the plan to\n")
    assert list(tmp_path.iterdir()) == []


def test_a_missing_folder_is_not_created(tmp_path: Path, capsys) -> None:
    target = tmp_path / "no" / "such" / "launch.sh"
    assert _plan_to(capsys, target) == (
        2, f"{target}: folder {tmp_path / 'no' / 'such'} does not exist (sparktui does not "
           "create it)\n")
    assert not (tmp_path / "no").exists()
