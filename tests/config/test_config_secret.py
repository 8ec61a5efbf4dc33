"""The Home Assistant token never shows: not in plans, errors, reprs or dumps."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_support import DUO, RECIPES, config_file, load_cfg, run_module

from sparktui.cli import main

TOKEN = "s3cr3t-token-value"
HA = f'\n[home_assistant]\nurl = "http://ha.local:8123"\ntoken = "{TOKEN}"\n'


@pytest.mark.parametrize("fmt", ["text", "json", "sh"])
def test_token_not_in_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    path = config_file(tmp_path, DUO + HA)
    code = main(["--lang", "en", "--config", str(path), "--recipes", str(RECIPES), "plan",
                 "qwen3-235b-2node", "-f", fmt])
    out, err = capsys.readouterr()
    assert code == 0 and "qwen3-235b-2node" in out
    assert TOKEN not in out + err


def test_token_not_in_plan_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = config_file(tmp_path, DUO + HA)
    target = tmp_path / "plan.sh"
    assert main(["--config", str(path), "--recipes", str(RECIPES), "plan", "glm-4.5-air-mtp",
                 "-f", "sh", "-o", str(target)]) == 0
    assert TOKEN not in target.read_text() + "".join(capsys.readouterr())


@pytest.mark.parametrize("broken", [
    DUO.replace("rank = 1,", 'rank = "1",') + HA,                       # elsewhere
    DUO + HA + "shutdown_delay_seconds = -5\n",                         # next to it
    DUO + HA + "verify_ssl = false\n",                                  # unknown key beside it
    DUO + HA.replace('url = "http://ha.local:8123"\n', ""),             # url missing
    DUO + HA.replace(f'"{TOKEN}"', f'"{TOKEN}'),                        # broken TOML on its line
])
def test_token_not_in_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                             broken: str) -> None:
    path = config_file(tmp_path, broken)
    code = main(["--lang", "en", "--config", str(path), "--recipes", str(RECIPES), "plan",
                 "qwen3-235b-2node"])
    out, err = capsys.readouterr()
    assert code == 2 and str(path) in err
    assert TOKEN not in out + err


def test_token_not_in_error_subprocess(tmp_path: Path) -> None:
    path = config_file(tmp_path, DUO.replace("rank = 0,", "rank = 0, bogus = 1,") + HA)
    proc = run_module(["--config", str(path), "--recipes", str(RECIPES), "plan",
                       "qwen3-235b-2node", "-f", "json"], cwd=tmp_path)
    assert proc.returncode == 2 and "bogus" in proc.stderr
    assert TOKEN not in proc.stdout + proc.stderr


def test_token_not_in_repr_or_dump(tmp_path: Path) -> None:
    loaded = load_cfg(tmp_path, DUO + HA)
    cfg = loaded.config
    assert cfg.home_assistant is not None
    assert cfg.home_assistant.token.get_secret_value() == TOKEN  # usable where needed
    for shown in (repr(cfg), str(cfg), repr(loaded), repr(cfg.home_assistant),
                  str(cfg.home_assistant.token), cfg.model_dump_json(), repr(cfg.model_dump()),
                  f"{cfg}", f"{cfg.home_assistant!r}"):
        assert TOKEN not in shown
