"""The fit before download against a Hub that gates, refuses and lies: the token sent and
never shown, a gated repo without it, sizes that are no sizes, a file name with escape
sequences, a body that never ends. The Hub here is tests/hub_standin.py (why a
stand-in: there, and ``Why.HUB``); sparktui's real ``huggingface_hub`` client talks to it
on loopback through ``HF_ENDPOINT``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import sys
import tracemalloc

from hub_standin import Flood, HubStandin, StandinRepo, hub_standin
from hub_support import CONFIGS, use_hub
from lookalike import Why

from sparktui.cli import main
from sparktui.engine.hub import hub_figures
from sparktui.plan.fit.calc import Layout
from sparktui.plan.fit.hub import HubError, HubFigures
from sparktui.plan.fit.probe import MAX_CONFIG, Question
from sparktui.plan.fit.settings import parse_settings
from sparktui.plan.model import HfRef
from sparktui.scrub import STARS, scrub

LOOKALIKE = Why.HUB

__all__ = ["hub_standin"]  # the fixture, used by name

CONFIG = (CONFIGS / "llama-3.1-8b.json").read_bytes()
TOKEN = "hf_standinTokenThatMustNeverShow"
SHARDS = {"model-00001-of-00002.safetensors": 5_000_000_000,
          "model-00002-of-00002.safetensors": 3_000_000_000}


def recipe(model: str) -> str:
    return "\n".join([
        'engine = "vllm"', 'docker_image = "vllm:hub"', f"model = {json.dumps(model)}",
        "port = 30017", "required_nodes = 2", "tensor_parallel_size = 2",
        'entrypoint = ["vllm", "serve"]', 'args = ["--max-model-len", "4096"]']) + "\n"


def _site(site, tmp_path, model):
    s = site(2, extra_toml=f'[mount_aliases]\nhf_cache = "{tmp_path / "hf"}"\n')
    s.recipe("r", recipe(model))
    return s


def ask(repo: str, timeout: float = 30.0) -> HubFigures | HubError:
    """The engine's Hub question for ``repo``, as a fit asks it."""
    question = Question("r", "c", HfRef("model", repo), repo, Layout("vllm", 1, 1, 1),
                        parse_settings("vllm", ["--max-model-len", "4096"], 1))
    return asyncio.run(hub_figures(question, timeout))


def test_a_gated_repo_without_a_token_says_so_and_sends_none(
        site, tmp_path, hub_standin: HubStandin, monkeypatch, capsys):
    hub_standin.repos["org/gated"] = StandinRepo({"config.json": CONFIG, **SHARDS}, token=TOKEN)
    s = _site(site, tmp_path, "org/gated")
    use_hub(monkeypatch, hub_standin.url)
    assert main(s.cli("fit", "r")) == 5
    out = capsys.readouterr().out
    assert (f"could not ask the Hub: org/gated is gated on {hub_standin.url}: its files "
            "need a token (set HF_TOKEN)") in out
    assert {auth for _m, _p, auth in hub_standin.seen} == {None}


def test_the_token_is_sent_and_never_shown(site, tmp_path, hub_standin: HubStandin,
                                           monkeypatch, capsys, caplog):
    hub_standin.repos["org/gated"] = StandinRepo({"config.json": CONFIG, **SHARDS}, token=TOKEN)
    # a Hub that echoes what it was sent, in a file name that the fit then names
    echo = f"echo-{TOKEN}.safetensors"
    hub_standin.repos["org/echo"] = StandinRepo({"config.json": CONFIG, echo: 1},
                                                sizes={echo: -1})
    s = _site(site, tmp_path, "org/gated")
    s.recipe("echo", recipe("org/echo"))
    use_hub(monkeypatch, hub_standin.url, token=TOKEN)
    caplog.set_level(logging.DEBUG)

    assert main(s.cli("fit", "r", "--json")) == 0
    rows = json.loads(capsys.readouterr().out)["nodes"]
    assert {r["weights_from"] for r in rows} == {"sizes"}
    assert {r["weights"] for r in rows} == {8_000_000_000 // 2}
    resolves = [auth for method, path, auth in hub_standin.seen if "/resolve/" in path]
    assert resolves and set(resolves) == {f"Bearer {TOKEN}"}

    assert main(s.cli("fit", "echo")) == 5
    captured = capsys.readouterr()
    shown = captured.out + captured.err + caplog.text
    assert f"echo-{STARS}.safetensors" in captured.out
    assert TOKEN not in shown
    assert scrub(f"Bearer {TOKEN}") == f"Bearer {STARS}"  # registered for every edge


def test_a_token_without_access_is_told_apart_from_no_token(hub_standin: HubStandin,
                                                            monkeypatch):
    hub_standin.repos["org/gated"] = StandinRepo({"config.json": CONFIG}, token=TOKEN)
    use_hub(monkeypatch, hub_standin.url, token="hf_anotherUsersToken")
    answer = ask("org/gated")
    assert isinstance(answer, HubError) and not answer.asked
    assert answer.said.code.code == "hub_why.gated"
    assert "the token sent (HF_TOKEN) has no access to its files" in str(answer.said)


def test_sizes_that_are_no_sizes_are_refused_naming_the_file_escaped(
        site, tmp_path, hub_standin: HubStandin, monkeypatch, capsys):
    bad = "model-\x1b[31m\x1b]0;owned\x07.safetensors"
    use_hub(monkeypatch, hub_standin.url)
    for repo, value in (("org/negative", -5), ("org/text", "12"), ("org/bool", True),
                        ("org/float", 1.5), ("org/null", None)):
        hub_standin.repos[repo] = StandinRepo({"config.json": CONFIG, bad: 1},
                                              sizes={bad: value})
        answer = ask(repo)
        assert isinstance(answer, HubError) and answer.asked, repo
        assert answer.said.code.code == "hub_why.bad_size"
        words = str(answer.said)
        assert "\x1b" not in words and "\x07" not in words
        assert "model-\\x1b[31m\\x1b]0;owned\\x07.safetensors" in words

    s = _site(site, tmp_path, "org/negative")
    assert main(s.cli("fit", "r")) == 5
    captured = capsys.readouterr()
    assert "the Hub gives model-\\x1b[31m" in captured.out and "(-5)" in captured.out
    assert "\x1b" not in captured.out + captured.err and "Traceback" not in captured.err


def test_answers_of_the_wrong_shape_are_reasons_not_guesses(hub_standin: HubStandin,
                                                            monkeypatch):
    use_hub(monkeypatch, hub_standin.url)
    cases = {
        "org/list-config": (StandinRepo({"config.json": b"[1, 2]"}), "hub_why.not_json"),
        "org/no-layers": (StandinRepo({"config.json": b'{"hidden_size": 4096}'}),
                          "hub_why.config_lacks"),
        "org/bad-utf8": (StandinRepo({"config.json": b"\xff\xfe{"}), "hub_why.not_json"),
        "org/no-config": (StandinRepo({"model.safetensors": 10}), "hub_why.no_config"),
        "org/negative-total": (StandinRepo({
            "config.json": CONFIG,
            "model.safetensors.index.json": b'{"metadata": {"total_size": -1}}'}),
            "hub_why.bad_total"),
    }
    for repo, (content, code) in cases.items():
        hub_standin.repos[repo] = content
        answer = ask(repo)
        assert isinstance(answer, HubError), repo
        assert answer.said.code.code == code, (repo, answer.said)


def test_a_body_that_never_ends_is_read_to_its_limit_only(hub_standin: HubStandin,
                                                         monkeypatch):
    hub_standin.repos["org/flood"] = StandinRepo({"config.json": Flood(512 << 20)})
    use_hub(monkeypatch, hub_standin.url)
    tracemalloc.start()
    try:
        answer = ask("org/flood")
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert isinstance(answer, HubError) and answer.said.code.code == "hub_why.too_large"
    assert answer.said.params["limit"] == MAX_CONFIG
    assert peak < 16 * MAX_CONFIG  # the 512 MiB were never held


def test_a_hub_that_never_answers_is_no_answer_within_the_timeout(monkeypatch):
    with socket.socket() as listener:  # accepts connections (the backlog), says nothing
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        use_hub(monkeypatch, f"http://127.0.0.1:{listener.getsockname()[1]}")
        answer = ask("org/silent", timeout=0.5)
    assert isinstance(answer, HubError) and answer.said.code.code == "hub_why.no_answer"


def test_a_machine_without_the_hub_client_says_so(monkeypatch):
    """An image built by hand (the on-node supervisor's) may lack huggingface_hub: the fit
    says the Hub could not be asked, never a traceback. (No server: nothing is sent.)"""
    use_hub(monkeypatch, "http://127.0.0.1:9")
    monkeypatch.setitem(sys.modules, "httpx2", None)  # import fails, as where it is absent
    answer = ask("org/any")
    assert isinstance(answer, HubError) and not answer.asked, answer
    assert "the Hugging Face client is not installed here" in str(answer.said), answer
