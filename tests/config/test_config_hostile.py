"""Hostile configs and recipes are refused at load: a located problem, exit 2, no traceback.

Every case writes the file, loads it through ``sparktui plan`` (in-process, the CLI's
error path) and checks the exact file:line, the field and the reason. Values that
would be a flag, a second line of a script, markup or a terminal escape never get as
far as a plan.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_support import DUO, VLLM_MIN, config_file, line_of, recipe_file

from sparktui.cli import main


def _refused(capsys: pytest.CaptureFixture[str], config: Path, recipes: Path,
             recipe: str = "demo", *extra: str) -> str:
    code = main(["--lang", "en", "--config", str(config), "--recipes", str(recipes), "plan",
                 recipe, "-f", "sh", *extra])
    out, err = capsys.readouterr()
    assert (code, out) == (2, ""), err
    assert "Traceback" not in err
    assert "\x1b" not in err and "\u202e" not in err and "\x00" not in err
    return err


def _config_case(tmp_path: Path, capsys, text: str, needle: str) -> tuple[str, str]:
    path = config_file(tmp_path, text)
    recipe_file(tmp_path, VLLM_MIN)
    err = _refused(capsys, path, tmp_path / "recipes")
    return err, f"{path}:{line_of(text, needle)}: "


@pytest.mark.parametrize(("old", "new", "field", "reason"), [
    ('name = "duo"', 'name = "duo\\u001b[2J"', "clusters[0].name",
     "holds U+001B (a control character or line break)"),
    ('name = "alpha"', 'name = "alpha\\u202egpj"', "clusters[0].nodes[0].name",
     "holds U+202E"),
    ('name = "beta"', 'name = "be\\u0000ta"', "clusters[0].nodes[1].name", "holds U+0000"),
    ('name = "alpha"', 'name = "node1[/]x"', "clusters[0].nodes[0].name",
     "'node1[/]x' is not a valid name"),
    ('name = "duo"', 'name = "duo\\nrm -rf /"', "clusters[0].name", "is not a valid name"),
    ('ssh_user = "ops"', 'ssh_user = "-oProxyCommand=touch /tmp/x"', "ssh_user",
     "'-oProxyCommand=touch /tmp/x' is not a user name"),
    ('ssh_ip = "10.9.0.1"', 'ssh_ip = "-oProxyCommand=x"', "clusters[0].nodes[0].ssh_ip",
     "is not a host name or IP address"),
    ('entity = "switch.alpha"', 'entity = "switch.a/../../api"', "clusters[0].nodes[0].entity",
     "is not a Home Assistant entity id"),
    ('socket_ifname = "enp1s0f1np1"', 'socket_ifname = "enp1 $(x)"', 'nccl.duo.socket_ifname',
     "is not a device list"),
])
def test_config_strings_have_a_grammar(tmp_path: Path, capsys, old: str, new: str, field: str,
                                       reason: str) -> None:
    text = DUO.replace(old, new, 1)
    assert text != DUO
    err, where = _config_case(tmp_path, capsys, text, new)
    first = err.splitlines()[0]
    assert first.startswith(f"{where}{field}: "), err
    assert reason in first


def test_a_100k_character_name_is_refused_and_shown_short(tmp_path, capsys) -> None:
    text = DUO.replace('name = "duo"', f'name = "{"x" * 100_000}"')
    err, where = _config_case(tmp_path, capsys, text, "xxxxx")
    assert err.startswith(f"{where}clusters[0].name: 'xxx") and "is not a valid name" in err
    assert len(err) < 1000  # the name is shown by its start


@pytest.mark.parametrize(("value", "reason"), [
    ("inf", "must be a finite number (not inf or nan)"),
    ("nan", "must be a finite number (not inf or nan)"),
    ("-inf", "must be a finite number (not inf or nan)"),
    ("0", "must be greater than 0"),
    ("1e300", "must be at most 604800"),
])
@pytest.mark.parametrize("key", ["health_timeout_seconds", "connect_timeout_seconds",
                                 "ready_timeout_seconds", "boot_timeout_seconds"])
def test_timeouts_are_finite_and_positive(tmp_path, capsys, key: str, value: str,
                                          reason: str) -> None:
    text = f"{key} = {value}\n" + DUO
    err, where = _config_case(tmp_path, capsys, text, key)
    assert err == f"{where}{key}: {reason}\n"


def test_home_assistant_token_must_be_header_safe(tmp_path, capsys) -> None:
    token = "s3cret-part"
    text = (DUO + '\n[home_assistant]\nurl = "http://ha.local:8123"\n'
            f'token = "{token}\\nX-Evil: 1"\n')
    err, where = _config_case(tmp_path, capsys, text, "token = ")
    assert err == (f"{where}home_assistant.token: the token must be printable ASCII without "
                   "spaces: it is sent in an HTTP header\n")
    assert token not in err


@pytest.mark.parametrize("token", ["abc", "x", "fifteen-chars-x"])
def test_a_token_under_16_characters_is_refused_where_it_is(tmp_path, capsys, token) -> None:
    text = (DUO + '\n[home_assistant]\nurl = "http://ha.local:8123"\n'
            f'token = "{token}"\n')
    err, where = _config_case(tmp_path, capsys, text, "token = ")
    assert err == (f"{where}home_assistant.token: the token is shorter than 16 characters: a "
                   "Home Assistant long-lived access token is far longer (your HA profile > "
                   "Security)\n")
    assert f'"{token}"' not in err


def test_a_non_ascii_token_is_a_problem_not_a_traceback(tmp_path, capsys) -> None:
    text = DUO + '\n[home_assistant]\nurl = "http://ha.local:8123"\ntoken = "tökenvalue"\n'
    err, where = _config_case(tmp_path, capsys, text, "token = ")
    assert err.startswith(f"{where}home_assistant.token: the token must be printable ASCII")
    assert "tökenvalue" not in err


def test_a_control_character_in_a_key_is_refused(tmp_path, capsys) -> None:
    text = DUO + '\n[exec_aliases]\n"gpu\\u001b]0;owned\\u0007" = "nvidia-smi"\n'
    err, where = _config_case(tmp_path, capsys, text, "nvidia-smi")
    assert err.splitlines()[0] == (f"{where}exec_aliases.gpu\\x1b]0;owned\\x07: a key holds "
                                   "the control character U+001B")


# -- recipes -----------------------------------------------------------------------------


def _recipe_case(tmp_path: Path, capsys, text: str, needle: str, name: str = "demo"
                 ) -> tuple[str, str]:
    path = recipe_file(tmp_path, text, name)
    err = _refused(capsys, config_file(tmp_path, DUO), tmp_path / "recipes", name)
    return err, f"{path}:{line_of(text, needle)}: "


@pytest.mark.parametrize(("extra", "needle", "field", "reason"), [
    ('shm_size = "1g$(touch pwned)"\n', "shm_size", "shm_size",
     "'1g$(touch pwned)' is not a size such as 16g"),
    ('[[extra_mounts]]\nhost = "/a:/b"\ncontainer = "/x"\n', '"/a:/b"', "extra_mounts[0].host",
     "'/a:/b' holds ':', which docker reads as the separator"),
    ('[[extra_mounts]]\nhost = "/a"\ncontainer = "x"\n', 'container = "x"',
     "extra_mounts[0].container", "'x' must be an absolute path"),
    ('[[extra_mounts]]\nhost = "/a\\nb"\ncontainer = "/x"\n', 'host = "/a', "extra_mounts[0].host",
     "holds a control character or a line break"),
    ('[env]\n"A B" = "1"\n', '"A B"', "env.A B", "is not an environment variable name"),
    ('args = ["--x", "ok\\u001b[31m"]\n', "args", "args[1]", "holds U+001B"),
    ('description = "right\\u202eleft"\n', "description", "description", "holds U+202E"),
])
def test_recipe_strings_have_a_grammar(tmp_path, capsys, extra: str, needle: str, field: str,
                                       reason: str) -> None:
    text = VLLM_MIN + extra
    err, where = _recipe_case(tmp_path, capsys, text, needle)
    assert err.splitlines()[0].startswith(f"{where}{field}: "), err
    assert reason in err


@pytest.mark.parametrize("image", ["--privileged", "-v/:/host", "img:1 --privileged",
                                   "Upper/Case:1", "img:1\nx", ""])
def test_docker_image_is_a_reference(tmp_path, capsys, image: str) -> None:
    text = VLLM_MIN.replace('docker_image = "img:1"', f"docker_image = {_toml(image)}")
    err, where = _recipe_case(tmp_path, capsys, text, "docker_image")
    assert err.startswith(f"{where}docker_image: "), err
    assert ("is not a docker image reference" in err or "must not be empty" in err
            or "holds U+000A" in err)


@pytest.mark.parametrize("image", ["img:1", "nvcr.io/nvidia/vllm:25.10-py3", "lmsysorg/sglang",
                                   "localhost:5000/a/b_c:tag", "ghcr.io/o/r@sha256:" + "a" * 64])
def test_real_images_are_accepted(tmp_path, capsys, image: str) -> None:
    recipe_file(tmp_path, VLLM_MIN.replace('"img:1"', _toml(image)))
    code = main(["--config", str(config_file(tmp_path, DUO)), "--recipes",
                 str(tmp_path / "recipes"), "plan", "demo", "-f", "json"])
    assert code == 0, capsys.readouterr().err


def test_model_cannot_be_an_option(tmp_path, capsys) -> None:
    text = VLLM_MIN.replace('model = "org/model"', 'model = "--trust-remote-code"')
    err, where = _recipe_case(tmp_path, capsys, text, "model")
    assert err == (f"{where}model: '--trust-remote-code' cannot start with '-': it would be "
                   "read as an option\n")


def test_a_recipe_folder_with_a_newline_is_refused(tmp_path, capsys) -> None:
    name = "rn\ntouch pwned"
    path = recipe_file(tmp_path, VLLM_MIN, name)
    err = _refused(capsys, config_file(tmp_path, DUO), tmp_path / "recipes", name)
    shown = str(path).replace("\n", "\\n")
    assert err == (f"{shown}: 'rn\\ntouch pwned' is not a recipe name: letters, digits, '.', "
                   "'_' and '-', starting with a letter or digit, at most 64\n")


def _toml(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
