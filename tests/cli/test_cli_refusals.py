"""Input the CLI refuses (exit 2, nothing run, nothing written) instead of accepting it
silently, and answers that say what is true when there is nothing to do."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_support import EXAMPLE_CONFIG, RECIPES

from sparktui.cli import main
from sparktui.exitcodes import ExitCode


def _local(tmp_path: Path) -> Path:
    config = tmp_path / "config.toml"
    config.write_text(f'known_hosts_path = "{tmp_path / "known_hosts"}"\n'
                      '[[clusters]]\nname = "here"\n'
                      'nodes = [{ name = "me", ssh_ip = "127.0.0.1", rank = 0, local = true }]\n',
                      encoding="utf-8")
    return config


def test_an_unknown_language_is_refused_with_the_known_ones(capsys):
    assert main(["--lang", "xx", "--config", str(EXAMPLE_CONFIG), "recipes"]) == \
        ExitCode.BAD_INPUT
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "unknown language 'xx'" in captured.err
    assert "(known: de, en, es, fr, it, ru)" in captured.err
    assert main(["--lang=ru_RU.UTF-8", "--config", str(EXAMPLE_CONFIG), "recipes"]) == \
        ExitCode.OK


@pytest.mark.parametrize("count", ["0", "-1"])
def test_top_count_below_one_is_bad_input(count, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--config", str(EXAMPLE_CONFIG), "top", "--count", count])
    assert exit_.value.code == ExitCode.BAD_INPUT
    assert "--count" in capsys.readouterr().err


def test_supervise_on_node_on_a_local_cluster_is_bad_input(tmp_path: Path, capsys):
    code = main(["--config", str(_local(tmp_path)), "--recipes", str(RECIPES),
                 "supervise", "qwen3-30b-tmux", "--on-node"])
    assert code == ExitCode.BAD_INPUT
    assert "local node cannot run its supervisor" in capsys.readouterr().err


def test_init_host_keys_with_only_local_nodes_records_nothing_and_says_so(
        tmp_path: Path, capsys):
    assert main(["--config", str(_local(tmp_path)), "init-host-keys"]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "nothing to record: me run on this machine, without SSH" in out
    assert "known hosts:" not in out
    assert not (tmp_path / "known_hosts").exists()


def test_an_unknown_alias_without_aliases_says_none(tmp_path: Path, capsys):
    assert main(["--config", str(_local(tmp_path)), "exec", "gpu"]) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err
    assert "[exec_aliases] (none)" in err and "(-)" not in err
