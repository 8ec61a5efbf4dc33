"""The Home Assistant client against a real HTTP server, and the token that never shows."""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from pathlib import Path

import pytest
from lookalike import Why
from power_support import TOKEN, fast_polls, ha, make_site
from site_support import Recorder, toy_recipe

from sparktui.cli import main
from sparktui.config.loader import load_config
from sparktui.config.models import HomeAssistant
from sparktui.engine.power.homeassistant import HomeAssistantClient, HomeAssistantError

# A look-alike, not the real vLLM (tests/lookalike.py): power cuts end the engine: a serve per test;
# 2-node group.
LOOKALIKE = (Why.SPEED, Why.MULTI_NODE)

__all__ = ["fast_polls", "ha"]  # fixtures used by name


def _client(url: str, token: str = TOKEN, **values) -> HomeAssistantClient:
    values.setdefault("timeout_seconds", 2.0)
    values.setdefault("confirm_timeout_seconds", 1.0)
    return HomeAssistantClient(HomeAssistant.model_validate(
        {"url": url, "token": token, **values}))


async def _error(coro) -> HomeAssistantError:
    with pytest.raises(HomeAssistantError) as info:
        await coro
    return info.value


async def test_services_are_called_in_the_entitys_own_domain(ha):
    ha.states.update({"light.desk": "off", "input_boolean.rack": "off", "fan.rack": "on"})
    async with _client(ha.url) as client:
        assert await client.set_and_confirm("light.desk", True) == "on"
        await client.turn_on("input_boolean.rack")
        await client.turn_off("fan.rack")
        assert await client.state("input_boolean.rack") == "on"
        assert await client.state("fan.rack") == "off"
    posts = [(c.path, c.body) for c in ha.calls if c.method == "POST"]
    assert posts == [("/api/services/light/turn_on", {"entity_id": "light.desk"}),
                     ("/api/services/input_boolean/turn_on", {"entity_id": "input_boolean.rack"}),
                     ("/api/services/fan/turn_off", {"entity_id": "fan.rack"})]
    assert all(c.authorized for c in ha.calls)


async def test_confirmation_reads_the_state_until_it_changes(ha):
    ha.states["switch.slow"] = "off"
    ha.lag["switch.slow"] = 0.3  # the service answers 200 [] at once; the state follows
    async with _client(ha.url) as client:
        started = time.monotonic()
        assert await client.set_and_confirm("switch.slow", True) == "on"
        assert time.monotonic() - started >= 0.3
        # nothing to change: 200 [] again, and the state already reads "on"
        assert await client.set_and_confirm("switch.slow", True) == "on"
    assert sum(1 for c in ha.calls if c.path == "/api/states/switch.slow") >= 3


async def test_a_refusing_entity_is_an_error_after_the_confirm_timeout(ha):
    ha.states["switch.stuck"] = "on"
    ha.refuse.add("switch.stuck")
    async with _client(ha.url, confirm_timeout_seconds=0.4) as client:
        error = await _error(client.set_and_confirm("switch.stuck", False))
    assert str(error) == "switch.stuck still reads 'on' 0.4 s after turn_off"
    assert error.entity == "switch.stuck"


async def test_errors_say_what_went_wrong(ha):
    async with _client(ha.url) as client:
        assert str(await _error(client.state("switch.nope"))) == "unknown entity switch.nope"
        for bad in ("switch", "Switch.A", "switch.a/../../api", "switch.a b"):
            assert "is not an entity id" in str(await _error(client.turn_on(bad)))
    assert ha.service_calls() == []
    async with _client(ha.url, token="not-the-token") as client:
        assert str(await _error(client.check())) == "Home Assistant refused the token"


async def test_unreachable_and_slow_home_assistant(ha):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}"
    async with _client(closed) as client:
        error = await _error(client.state("switch.a"))
    assert str(error).startswith(f"Home Assistant unreachable at {closed}")
    ha.states["switch.a"] = "on"
    ha.delay["switch.a"] = 1.0
    async with _client(ha.url, timeout_seconds=0.3) as client:
        error = await _error(client.state("switch.a"))
    assert str(error) == f"Home Assistant unreachable at {ha.url}: no answer within 0.3 s"


async def test_a_body_echoing_the_token_is_scrubbed(ha, caplog):
    caplog.set_level(logging.DEBUG)
    ha.fail_with = 500  # the body quotes the Authorization header back
    client = _client(ha.url)
    async with client:
        error = await _error(client.turn_on("switch.a"))
    assert "Home Assistant answered 500" in str(error) and "Bearer **********" in str(error)
    for shown in (str(error), repr(error), repr(client), str(client), caplog.text):
        assert TOKEN not in shown


def _everything_shown(capsys, caplog, recorder: Recorder | None = None) -> str:
    out, err = capsys.readouterr()
    texts = [out, err, caplog.text]
    if recorder is not None:
        texts += [f"{e!r}" for e in recorder.events]
    return "\n".join(texts)


def test_the_token_never_shows_in_any_output(fresh_cluster, tmp_path, ha, capsys, caplog):
    caplog.set_level(logging.DEBUG)
    site = make_site(fresh_cluster, tmp_path, ha)
    assert main(site.cli("power", "off", "--yes")) == 0
    assert main(site.cli("power", "on", "--yes")) == 0
    shown = _everything_shown(capsys, caplog)
    assert "power: everything was done" in shown
    ha.fail_with = 500
    assert main(site.cli("power", "off", "--yes")) == 1
    shown += _everything_shown(capsys, caplog)
    assert "Home Assistant answered 500" in shown
    ha.fail_with = None
    ha.refuse.add("switch.rack")
    recorder = Recorder()

    async def engine_run():
        engine = site.engine()
        try:
            return await engine.power_off("test", recorder)
        finally:
            await engine.close()

    result = asyncio.run(engine_run())
    assert not result.ok
    shown += _everything_shown(capsys, caplog, recorder) + repr(result)
    shown += "\n".join(str(o.detail) for o in result.outcomes)  # the words, as shown
    shown += repr(site.loaded) + site.loaded.config.model_dump_json()
    assert "still reads 'on'" in shown
    assert TOKEN not in shown


def test_serving_cluster_is_said_loudly_and_needs_its_typed_name(fresh_site, ha, capsys,
                                                                 monkeypatch):
    s = fresh_site(2, extra_toml=ha.toml())
    command = f'power_off_command = ["{s.hosts.bin_dir / "poweroff"}"]\n'
    s.config_path.write_text(command + "shutdown_timeout_seconds = 5\n"
                             + s.config_path.read_text())
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0
    capsys.readouterr()

    class Terminal:
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stdin", Terminal())
    answers = iter(["", "test"])
    monkeypatch.setattr("builtins.input", lambda prompt: next(answers))
    assert main(s.cli("power", "off")) == 3
    out = capsys.readouterr().out
    assert "cluster test: serving" in out and "test is SERVING" in out
    assert s.hosts.node("node1").containers() and s.hosts.node("node1").running
    assert ha.calls == []
    assert main(s.cli("power", "off")) == 0  # no entities here: shut down only
    assert not s.hosts.node("node1").running and not s.hosts.node("node2").running
    assert ha.service_calls() == []


def test_power_off_command_defaults_to_sudo_unless_root(tmp_path: Path):
    base = '[[clusters]]\nname = "c"\nnodes = [{ name = "n", ssh_ip = "10.0.0.5", rank = 0 }]\n'
    for user, expected in (("ops", ["sudo", "-n", "shutdown", "-h", "now"]),
                           ("root", ["shutdown", "-h", "now"])):
        path = tmp_path / f"{user}.toml"
        path.write_text(f'ssh_user = "{user}"\n' + base)
        config = load_config(path).config
        assert config.power_off_command == expected
        assert (config.shutdown_timeout_seconds, config.boot_timeout_seconds) == (300.0, 600.0)
    path.write_text('power_off_command = ["systemctl", "poweroff"]\n' + base)
    assert load_config(path).config.power_off_command == ["systemctl", "poweroff"]
