"""The Home Assistant token never shows in any form: raw, repr'd, escaped or URL-encoded.

A header-safe token may still hold a backslash or a quote, which ``repr`` and JSON
escape; a server that echoes the request back shows it in those forms. The config
refuses a token that is not header-safe (tests/config/test_config_hostile.py); a client
built past the load gets an error that does not show it either.
"""

from __future__ import annotations

import base64
import html
import json
import logging
from urllib.parse import quote, quote_plus

import httpx
import pytest
from hosts.home_assistant import FakeHomeAssistant
from power_support import fast_polls, make_site

from sparktui.cli import main
from sparktui.config.models import HomeAssistant
from sparktui.engine.power.homeassistant import HomeAssistantClient, HomeAssistantError
from sparktui.scrub import forms, scrub

__all__ = ["fast_polls"]

WEIRD = "tok\\5ecr'et\"x/y+z%41=="  # printable ASCII, no spaces: a valid header value


def _every_form(token: str) -> list[str]:
    return [token, repr(token)[1:-1], repr(token.encode())[2:-1], json.dumps(token)[1:-1],
            token.replace("\\", "\\\\"), quote(token, safe=""), quote_plus(token),
            quote(token, safe="").lower()]


def _shows_it(text: str, token: str = WEIRD) -> list[str]:
    return [form for form in _every_form(token) if form in text]


def test_scrub_replaces_every_form() -> None:
    for form in _every_form(WEIRD):
        assert scrub(f"<{form}>", {WEIRD}) == "<**********>", form
    assert forms(WEIRD) >= set(_every_form(WEIRD)) - {quote(WEIRD, safe="").lower()}


def _client(url: str, token: str, transport: httpx.AsyncBaseTransport | None = None):
    config = HomeAssistant.model_validate({"url": url, "token": token, "timeout_seconds": 2.0,
                                           "confirm_timeout_seconds": 1.0})
    return HomeAssistantClient(config, transport=transport)


async def _error(coro) -> HomeAssistantError:
    with pytest.raises(HomeAssistantError) as info:
        await coro
    return info.value


async def test_a_server_echoing_the_escaped_header_is_scrubbed(caplog) -> None:
    caplog.set_level(logging.DEBUG)
    with FakeHomeAssistant(WEIRD) as server:
        server.fail_with = 500  # the body is the header's repr(): backslash and quotes escaped
        async with _client(server.url, WEIRD) as client:
            error = await _error(client.turn_on("switch.a"))
    assert "Home Assistant answered 500" in str(error) and "**********" in str(error)
    assert _shows_it(str(error) + repr(error) + caplog.text) == []


@pytest.mark.parametrize("echo", [json.dumps, lambda t: quote(t, safe=""), quote_plus,
                                  lambda t: t.encode("unicode_escape").decode()])
async def test_other_echoed_forms_are_scrubbed(echo) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        header = request.headers["Authorization"].removeprefix("Bearer ")
        return httpx.Response(502, text=f"upstream said: {echo(header)}")

    async with _client("http://ha.test", WEIRD, httpx.MockTransport(answer)) as client:
        error = await _error(client.state("switch.a"))
    assert "answered 502" in str(error)
    assert _shows_it(str(error)) == []


@pytest.mark.parametrize("token", ["line1\nX-Evil: 1", "tökenvalue-1234"])
async def test_a_token_past_the_load_is_an_error_not_a_leak(token: str) -> None:
    async with _client("http://127.0.0.1:9", token) as client:
        error = await _error(client.check())
    text = str(error)
    assert "Home Assistant" in text
    for form in (token, repr(token)[1:-1], repr(token.encode())[2:-1], "line1", "tökenvalue"):
        assert form not in text


def test_power_on_never_prints_the_token(test_cluster, tmp_path, capsys, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    with FakeHomeAssistant(WEIRD) as server:
        table = (f"[home_assistant]\nurl = {json.dumps(server.url)}\n"
                 f"token = {json.dumps(WEIRD)}\ntimeout_seconds = 2.0\n"
                 "confirm_timeout_seconds = 2.0\nshutdown_delay_seconds = 0\n")
        site = make_site(test_cluster, tmp_path, server, ha_table=table)
        server.fail_with = 500
        code = main(site.cli("power", "on", "--yes"))
        out, err = capsys.readouterr()
    assert code == 1 and "Home Assistant answered 500" in out + err
    assert _shows_it(out + err + caplog.text) == []


LONG = "tok&Html<B64>-'0123456789abc"  # header-safe, with the characters HTML escapes


@pytest.mark.parametrize("echo", [
    lambda auth: "".join(f"&#x{ord(c):x};" for c in auth),              # every character
    lambda auth: "".join(f"&#{ord(c)};" for c in auth),                  # decimal
    html.escape,                                                         # &amp; &lt; ...
    lambda auth: base64.b64encode(auth.encode()).decode(),               # "Bearer " + token
    lambda auth: base64.b64encode(auth.removeprefix("Bearer ").encode()).decode(),
    lambda auth: base64.urlsafe_b64encode(b"x" + auth.encode()).decode(),
], ids=["hex-entities", "decimal-entities", "html-escape", "base64-header", "base64-token",
        "urlsafe-base64-shifted"])
async def test_an_echo_in_html_or_base64_is_scrubbed(echo) -> None:
    with FakeHomeAssistant(LONG) as server:
        server.fail_with = 500
        server.echo = echo
        async with _client(server.url, LONG) as client:
            error = await _error(client.turn_on("switch.a"))
    text = str(error)
    assert "Home Assistant answered 500" in text and "**********" in text
    body = text.split("internal error handling ", 1)[1]
    rest = body.replace("**********", "")  # what is left: at most "Bearer " and an edge
    assert len(rest) <= len(echo("Bearer ")) + 4 and LONG[3:9] not in html.unescape(rest), body


def test_credentials_in_the_url_never_show_in_power_output(test_cluster, tmp_path, capsys,
                                                           caplog) -> None:
    caplog.set_level(logging.DEBUG)
    with FakeHomeAssistant(WEIRD) as server:
        url = (server.url.replace("http://", "http://admin:pw@") +
               "/?api_password=hapw-query-secret&x=1")
        table = (f"[home_assistant]\nurl = {json.dumps(url)}\n"
                 f"token = {json.dumps(WEIRD)}\ntimeout_seconds = 2.0\n"
                 "confirm_timeout_seconds = 2.0\nshutdown_delay_seconds = 0\n")
        site = make_site(test_cluster, tmp_path, server, ha_table=table)
        server.fail_with = 500
        assert main(site.cli("power", "on", "--yes")) == 1
        answered = "".join(capsys.readouterr())
    assert main(site.cli("power", "on", "--yes")) == 1  # the server is gone: unreachable
    unreachable = "".join(capsys.readouterr())
    assert "Home Assistant unreachable at http://admin:**********@127.0.0.1:" in unreachable
    assert "api_password=**********" in unreachable
    shown = answered + unreachable + caplog.text
    for secret in ("admin:pw", ":pw@", "hapw-query-secret", quote("hapw-query-secret")):
        assert secret not in shown
    assert _shows_it(shown) == []


def test_a_url_with_credentials_that_is_not_valid_is_shown_without_them(tmp_path,
                                                                       capsys) -> None:
    from plan_support import DUO, RECIPES, config_file

    path = config_file(tmp_path, DUO + '\n[home_assistant]\nurl = "ftp://admin:pw-x@ha/"\n'
                                       f"token = {json.dumps(WEIRD)}\n")
    code = main(["--lang", "en", "--config", str(path), "--recipes", str(RECIPES), "plan",
                 "qwen3-235b-2node"])
    err = capsys.readouterr().err
    assert code == 2 and "home_assistant.url: 'ftp://admin:**********@ha/' is not" in err
    assert "pw-x" not in err
