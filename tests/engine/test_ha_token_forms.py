"""The Home Assistant token never shows in any form: raw, repr'd, escaped or URL-encoded.

A header-safe token may still hold a backslash or a quote, which ``repr`` and JSON
escape; a server that echoes the request back shows it in those forms. The config
refuses a token that is not header-safe (tests/config/test_config_hostile.py); a client
built past the load gets an error that does not show it either.
"""

from __future__ import annotations

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
