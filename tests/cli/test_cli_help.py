"""What ``--help`` tells an operator: a version, a description for every command, a help
for every option, one meaning of each short flag, and the exit codes from their one
table (sparktui.exitcodes)."""

from __future__ import annotations

import argparse

import pytest
from plan_support import EXAMPLE_CONFIG, REPO

from sparktui import __version__
from sparktui.cli import main
from sparktui.cli.parser import build_parser
from sparktui.config.discovery import recipe_dirs
from sparktui.exitcodes import COMMAND_CODES, ExitCode, markdown_table
from sparktui.resources import data_dir


def _subparsers(parser: argparse.ArgumentParser, path: str = ""):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield f"{path} {name}".strip(), sub
                yield from _subparsers(sub, f"{path} {name}")


def _commands() -> dict[str, argparse.ArgumentParser]:
    return dict(_subparsers(build_parser()))


def test_version_prints_the_package_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"sparktui {__version__}"


@pytest.mark.parametrize("command", sorted(_commands()))
def test_every_command_has_a_description_and_every_option_a_help(command):
    sub = _commands()[command]
    assert sub.description, command
    missing = [a.dest for a in sub._actions
               if not isinstance(a, argparse._SubParsersAction)
               and a.help is None]
    assert missing == [], f"{command}: options without help: {missing}"


def test_a_short_flag_means_the_same_option_in_every_command():
    meaning: dict[str, set[str]] = {}
    for command, sub in _commands().items():
        for action in sub._actions:
            for flag in action.option_strings:
                if len(flag) == 2 and flag != "-h":
                    longs = [f for f in action.option_strings if f.startswith("--")]
                    meaning.setdefault(flag, set()).update(longs or [f"{command}:{flag}"])
    # -f is docker's and tail's --follow in logs and --format in plan: both what their
    # users type, and never in one command.
    assert {flag: longs for flag, longs in meaning.items() if len(longs) > 1} == {
        "-f": {"--follow", "--format"}}
    assert meaning["-c"] == {"--cluster"}
    assert meaning["-n"] == {"--node"}


def test_the_recipes_help_names_the_search_order_discovery_follows(tmp_path):
    help_text = next(a.help for a in build_parser()._actions if "--recipes" in a.option_strings)
    cwd, home = tmp_path / "cwd", tmp_path / "home"
    cwd.mkdir()
    home.mkdir()
    order = ["$SPARKTUI_RECIPES", "./recipes", "~/.config/sparktui/recipes", "shipped"]
    positions = [help_text.find(word) for word in order]
    assert -1 not in positions and positions == sorted(positions), help_text
    # ... and discovery walks it in that order.
    env = {"SPARKTUI_RECIPES": str(tmp_path / "env")}
    assert recipe_dirs(None, env, cwd, home) == tmp_path / "env"
    assert recipe_dirs(None, {}, cwd, home) == data_dir("recipes")
    (home / ".config" / "sparktui" / "recipes").mkdir(parents=True)
    assert recipe_dirs(None, {}, cwd, home) == home / ".config" / "sparktui" / "recipes"
    (cwd / "recipes").mkdir()
    assert recipe_dirs(None, {}, cwd, home) == cwd / "recipes"


def test_every_command_has_an_exit_code_table_in_its_help():
    top = {name for name in _commands() if " " not in name}
    assert set(COMMAND_CODES) == top
    for command, sub in _commands().items():
        text = sub.format_help()
        own = COMMAND_CODES[command.split()[0]]
        assert "exit codes:" in text, command
        for code, _meaning in own:
            assert f"\n  {int(code):>3}  " in text, (command, code)
    overview = build_parser().format_help()
    for code in ExitCode:
        assert f"\n  {int(code):>3}  " in overview


def test_the_readme_has_the_exit_code_table():
    assert markdown_table() in (REPO / "README.md").read_text(encoding="utf-8")


def test_exec_without_an_alias_lists_the_aliases(capsys):
    assert main(["--config", str(EXAMPLE_CONFIG), "exec"]) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err
    assert "exec needs an [exec_aliases] name or -- COMMAND" in err
    assert "gpu" in err and "''" not in err


def test_exec_without_an_alias_and_no_aliases_says_to_give_a_command(tmp_path, capsys):
    config = tmp_path / "config.toml"
    config.write_text('[[clusters]]\nname = "a"\nnodes = [{ name = "n", ssh_ip = "10.0.0.1",'
                      ' rank = 0 }]\n', encoding="utf-8")
    assert main(["--config", str(config), "exec", "--"]) == ExitCode.BAD_INPUT
    assert "exec needs -- COMMAND" in capsys.readouterr().err
