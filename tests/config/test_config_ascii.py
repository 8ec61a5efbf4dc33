"""Every grammar of a config or recipe string is ASCII (sparktui/config/rules.py).

Python's ``\\w`` and ``\\d`` are Unicode: an image tag of ``[\\w]`` took ``vllm:ｌatest``
(a full-width ``ｌ`` that reads as ``latest`` in a terminal) and Arabic-Indic digits. A
name that only looks like another must be refused at load, never sent to docker.
"""

from __future__ import annotations

import re

import pytest
from plan_support import DUO, VLLM_MIN, config_file, line_of, recipe_file

from sparktui.cli import main
from sparktui.config import rules

FULLWIDTH_L = "\uff4c"
ARABIC_ONE_TWO = "\u0661\u0662"
CYRILLIC_A = "\u0430"


@pytest.mark.parametrize("image", [f"vllm:{FULLWIDTH_L}atest", f"vllm:v{ARABIC_ONE_TWO}",
                                   "vllm:caf\u00e9", f"vllm:25.10-py{ARABIC_ONE_TWO}"])
def test_a_non_ascii_image_tag_is_refused_with_its_line(tmp_path, capsys, image: str) -> None:
    text = VLLM_MIN.replace('docker_image = "img:1"', f'docker_image = "{image}"')
    path = recipe_file(tmp_path, text)
    code = main(["--lang", "en", "--config", str(config_file(tmp_path, DUO)), "--recipes",
                 str(tmp_path / "recipes"), "plan", "demo", "-f", "sh"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, ""), err
    assert err.startswith(f"{path}:{line_of(text, 'docker_image')}: docker_image: "), err
    assert "is not a docker image reference" in err


@pytest.mark.parametrize(("pattern", "ascii_value", "lookalike"), [
    (rules.IMAGE, "vllm:latest", f"vllm:{FULLWIDTH_L}atest"),
    (rules.IMAGE, "vllm:v12", f"vllm:v{ARABIC_ONE_TWO}"),
    (rules.IMAGE, "nvcr.io/nvidia/vllm:25.10", "nvcr.io/nvidia/vllm:25.1\u0660"),
    (rules.NAME, "alpha", f"alph{CYRILLIC_A}"),
    (rules.NAME, "node12", f"node{ARABIC_ONE_TWO}"),
    (rules.USER, "ops", f"op{FULLWIDTH_L}"),
    (rules.HOST, "10.9.0.12", f"10.9.0.{ARABIC_ONE_TWO}"),
    (rules.HOST, "spark1", "spark\u0661"),
    (rules.ENTITY, "switch.alpha", f"switch.alph{CYRILLIC_A}"),
    (rules.ENV_KEY, "KEY12", f"KEY{ARABIC_ONE_TWO}"),
    (rules.NCCL_VALUE, "mlx5_0", "mlx\u0665_0"),
    (rules.SIZE, "12g", f"{ARABIC_ONE_TWO}g"),
    (rules.HF_REPO, "org/model", f"org/mode{FULLWIDTH_L}"),
    (rules.TOKEN, "abcdefgh12345678", "abcdefgh1234567\u0668"),
    (rules.URL, "http://ha:8123", "http://ha:\u0668123"),
])
def test_every_grammar_refuses_unicode_lookalikes(pattern: re.Pattern[str], ascii_value: str,
                                                  lookalike: str) -> None:
    """The ASCII value passes and its look-alike does not: letters and digits in the
    grammar are ASCII ones, whatever ``\\w`` or ``\\d`` would say."""
    assert pattern.fullmatch(ascii_value), ascii_value
    assert pattern.fullmatch(lookalike) is None, lookalike


def test_a_node_name_with_arabic_digits_is_refused(tmp_path, capsys) -> None:
    text = DUO.replace('name = "alpha"', f'name = "alpha{ARABIC_ONE_TWO}"', 1)
    path = config_file(tmp_path, text)
    recipe_file(tmp_path, VLLM_MIN)
    code = main(["--lang", "en", "--config", str(path), "--recipes",
                 str(tmp_path / "recipes"), "plan", "demo", "-f", "sh"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"{path}:{line_of(text, ARABIC_ONE_TWO)}: clusters[0].nodes[0].name"), err
