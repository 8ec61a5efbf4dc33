"""sparktui's one secret rule (sparktui/scrub.py): which names, options and URL parts hold a
secret, masked by position on values (any length), then by value in every form; and the
plans that print argv (text, json) or run them (sh) with no secret in them."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from urllib.parse import quote

import pytest
from plan_support import DUO, make_plan

from sparktui.plan.render import render
from sparktui.scrub import STARS, forms, mask_argv, mask_data, scrub, secret_name

HF = "hf_Qz-plan-secret-4711"
API = "ab"  # under 4 characters: masked by its field, never searched for
PW = "pw"
RECIPE = f"""\
engine = "vllm"
docker_image = "img:1"
model = "org/model"
required_nodes = 2
tensor_parallel_size = 2
args = ["--api-key", "k9", "--served-model-name", "m"]
before_serve = ["export OPENAI_APIKEY=sk-hook-value-123; echo ok"]

[env]
HF_TOKEN = "{HF}"
VLLM_API_KEY = "{API}"
DATABASE_URL = "postgres://u:{PW}@db.local/x"
SHOWN = "visible-value"
"""


@pytest.mark.parametrize("name", [
    "HF_TOKEN", "VLLM_API_KEY", "API_KEY", "OPENAI_APIKEY", "AWS_SESSION_TOKEN_V2",
    "DB_PASSWORD", "DB_PASSWD", "AWS_SECRET", "MY_SECRET_ACCESS", "SSH_KEY", "DB_PASS",
    "--api-key", "--token", "--password", "--hf-token", "accessToken", "token", "key"])
def test_secret_names(name: str) -> None:
    assert secret_name(name)


@pytest.mark.parametrize("name", [
    "NCCL_DEBUG", "MAX_TOKENS", "--max-num-batched-tokens", "--tokenizer", "KEYFILE",
    "--ssl-keyfile", "TERM", "VLLM_HOST_IP", "--served-model-name"])
def test_ordinary_names(name: str) -> None:
    assert not secret_name(name)


def test_argv_fields_are_masked_by_position_whatever_their_length() -> None:
    argv = ["docker", "run", "-e", "HF_TOKEN=x", "-e", "OPENAI_APIKEY=yz",
            "-e", "DATABASE_URL=postgres://u:pw@h/db", "-e", "NCCL_DEBUG=WARN",
            "vllm", "serve", "--api-key", "k", "--token=t1", "--password", "p",
            "--port", "8000", "bash", "-c", "export AWS_SESSION_TOKEN_V2=s; run --api-key q9"]
    assert mask_argv(argv) == [
        "docker", "run", "-e", f"HF_TOKEN={STARS}", "-e", f"OPENAI_APIKEY={STARS}",
        "-e", f"DATABASE_URL=postgres://u:{STARS}@h/db", "-e", "NCCL_DEBUG=WARN",
        "vllm", "serve", "--api-key", STARS, f"--token={STARS}", "--password", STARS,
        "--port", "8000", "bash", "-c",
        f"export AWS_SESSION_TOKEN_V2={STARS}; run --api-key {STARS}"]


def test_a_long_secret_found_by_position_is_scrubbed_wherever_else_it_shows() -> None:
    data = {"Env": ["HF_TOKEN=hf-long-secret"], "Args": ["-c", "echo hf-long-secret"],
            "Labels": {"note": "said hf-long-secret"}, "ShortOne": ["X_KEY=ab", "cab ab"]}
    masked = mask_data(data)
    assert "hf-long-secret" not in json.dumps(masked)
    assert masked["Args"] == ["-c", f"echo {STARS}"]
    assert masked["ShortOne"] == [f"X_KEY={STARS}", "cab ab"]  # short: by position only


@pytest.mark.parametrize("word", ["null", "true", "false", '"', "\\", "{}"])
def test_a_secret_that_is_a_json_word_is_masked_not_a_crash(word: str) -> None:
    item = {"Config": {"Env": [f"HF_TOKEN={word}", "A=1"], "Labels": {"x": "y"}},
            "Args": ["--api-key", word], "State": {"Running": True}}
    masked = mask_data(item)
    assert masked["Config"]["Env"][0] == f"HF_TOKEN={STARS}"
    assert masked["Args"] == ["--api-key", STARS]
    assert masked["State"] == {"Running": True}


def test_html_and_base64_forms_are_scrubbed() -> None:
    token = "tok-Base64-and-HTML&<x>"
    for prefix in (b"", b"u", b"us"):  # each alignment inside a longer base64 text
        encoded = base64.b64encode(prefix + token.encode() + b"!tail").decode()
        scrubbed = scrub(encoded, {token})
        assert STARS in scrubbed and len(scrubbed.replace(STARS, "")) <= 12, (prefix, scrubbed)
        urlsafe = base64.urlsafe_b64encode(prefix + token.encode()).decode()
        assert STARS in scrub(urlsafe, {token})
    entities = "".join(f"&#x{ord(c):x};" for c in token)
    assert scrub(f"<p>{entities}</p>", {token}) == f"<p>{STARS}</p>"
    assert scrub("<p>tok-Base64-and-HTML&amp;&lt;x&gt;</p>", {token}) == f"<p>{STARS}</p>"
    assert scrub("".join(f"&#{ord(c)};" for c in token), {token}) == STARS


def _every_form(secret: str) -> list[str]:
    return sorted(forms(secret) | {quote(secret, safe="")}, key=len, reverse=True)


def _shows(text: str, *secrets: str) -> list[str]:
    return [f for s in secrets for f in _every_form(s) if f in text]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_printed_plan_holds_no_secret(tmp_path: Path, fmt: str) -> None:
    out = render(make_plan(tmp_path, DUO, RECIPE), fmt)
    assert _shows(out, HF, "sk-hook-value-123") == []
    for short in (f"VLLM_API_KEY={API}", f"u:{PW}@", "--api-key k9", '"k9"'):
        assert short not in out
    assert "SHOWN=visible-value" in out or '"SHOWN": "visible-value"' in out
    if fmt == "json":
        node = json.loads(out)["nodes"][0]
        assert node["env"]["HF_TOKEN"] == STARS
        assert f"HF_TOKEN={STARS}" in node["launch"]
        assert node["launch"][node["launch"].index("--api-key") + 1] == STARS
        assert "OPENAI_APIKEY=" + STARS in node["before_serve"][0]["run"]


def test_the_sh_script_takes_secrets_from_the_environment(tmp_path: Path) -> None:
    recipe = RECIPE.replace('before_serve = ["export OPENAI_APIKEY=sk-hook-value-123; '
                            'echo ok"]\n', "")
    out = render(make_plan(tmp_path, DUO, recipe), "sh")
    assert _shows(out, HF) == [] and "k9" not in out and f":{PW}@" not in out
    assert f"={API} " not in out and f"={API}'" not in out
    assert ': "${HF_TOKEN?HF_TOKEN is not set' in out
    assert "export HF_TOKEN VLLM_API_KEY DATABASE_URL SPARKTUI_SECRET_API_KEY" in out
    assert " -e HF_TOKEN -e VLLM_API_KEY -e DATABASE_URL " in out  # docker reads its env
    assert "--api-key \"${SPARKTUI_SECRET_API_KEY}\"" in out
    assert "IFS= read -r HF_TOKEN && " in out  # a remote node gets them on ssh's stdin
    assert "exit 1" not in out  # nothing had to be starred: the script runs as it is


def test_a_secret_inside_a_hook_makes_the_sh_script_refuse_to_run(tmp_path: Path) -> None:
    out = render(make_plan(tmp_path, DUO, RECIPE), "sh")
    assert "sk-hook-value-123" not in out and f"OPENAI_APIKEY={STARS}" in out
    refusal = out.splitlines()[4]
    assert refusal.startswith("printf") and refusal.endswith("exit 1")
