"""power off / on / switch against the sshd test hosts and a real HTTP Home Assistant.

Each node's entity (switch.nodeN) is its mains power in the fake Home Assistant:
turning it on starts the node's sshd, turning it off under a running node is a hard
cut (``ha.hard_cuts``), which must never happen. The nodes' power-off command is the
test hosts' ``poweroff`` stand-in: it stops only that node's sshd and processes.
"""

from __future__ import annotations

import asyncio
import time

from power_support import TOKEN, fast_polls, ha, headless, make_site
from site_support import Recorder

from sparktui.cli import main
from sparktui.engine.power.codes import PowerSaid
from sparktui.said import said

__all__ = ["fast_polls", "ha", "headless"]  # fixtures used by name


def _run(coro):
    return asyncio.run(coro)


async def _power(site, action: str, *clusters: str, recorder: Recorder | None = None):
    engine = site.engine()
    sink = recorder or Recorder()
    try:
        if action == "switch":
            return await engine.power_switch(*clusters, sink)
        return await getattr(engine, f"power_{action}")(clusters[0], sink)
    finally:
        await engine.close()


def _index(events, step, node, state):
    return next(i for i, e in enumerate(events)
                if (e.step, e.node or e.entity, e.state) == (step, node, state))


def test_off_shuts_nodes_down_then_turns_off_their_entities_then_the_extras(
        fresh_cluster, tmp_path, ha):
    site = make_site(fresh_cluster, tmp_path, ha)
    rec = Recorder()
    result = _run(_power(site, "off", "test", recorder=rec))
    assert result.ok, result
    assert not site.node("node1").running and not site.node("node2").running
    assert [n.recorded_power() for n in site.hosts.nodes] == [[["poweroff"]]] * 2
    assert ha.states == {"switch.node1": "off", "switch.node2": "off", "switch.rack": "off"}
    assert ha.hard_cuts == []  # every entity went off after its node stopped answering
    offs = [e for s, e in ha.service_calls() if s == "turn_off"]
    assert sorted(offs[:2]) == ["switch.node1", "switch.node2"] and offs[2:] == ["switch.rack"]
    for node in ("node1", "node2"):
        assert _index(rec.events, "halt", node, "ok") < _index(rec.events, "power_off", node,
                                                                "started")
    assert {(o.action, o.target) for o in result.done} == {
        ("shutdown", "node1"), ("shutdown", "node2"), ("power_off", "switch.node1"),
        ("power_off", "switch.node2"), ("power_off", "switch.rack")}
    assert result.not_done == []


def test_on_turns_on_extras_first_then_the_nodes_and_waits_for_ssh(fresh_cluster, tmp_path, ha):
    site = make_site(fresh_cluster, tmp_path, ha, down=("node1", "node2"), boot_delay=0.8)
    ha.states["switch.rack"] = "off"
    rec = Recorder()

    async def go():
        engine = site.engine()
        try:
            result = await engine.power_on("test", rec)
            return result, await engine.health("test")
        finally:
            await engine.close()

    result, health = _run(go())
    assert result.ok, result
    assert site.node("node1").running and site.node("node2").running
    assert health.all_reachable
    ons = [e for s, e in ha.service_calls() if s == "turn_on"]
    assert ons[0] == "switch.rack" and sorted(ons[1:]) == ["switch.node1", "switch.node2"]
    assert ("node1", "boot") in rec.steps("waiting") and ("node1", "boot") in rec.steps("ok")
    assert {(o.action, o.target) for o in result.done} >= {("boot", "node1"), ("boot", "node2")}
    assert site.power_off_calls() == []


def test_switch_powers_off_only_what_the_source_alone_uses(fresh_cluster, tmp_path, ha, capsys):
    site = make_site(fresh_cluster, tmp_path, ha, n=3, down=("node3",),
                     clusters={"a": ["node1", "node2"], "b": ["node2", "node3"]},
                     extras={"a": ["switch.qsfp", "switch.fan_a"], "b": ["switch.qsfp"]})
    code = main(site.cli("power", "switch", "--from", "a", "--to", "b", "--yes"))
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "cluster a:" in out and "cluster b:" in out  # health of both, first
    assert not site.node("node1").running
    assert site.node("node2").running and site.node("node3").running
    assert [len(n.recorded_power()) for n in site.hosts.nodes] == [1, 0, 0]
    assert ha.states == {"switch.node1": "off", "switch.node2": "on", "switch.node3": "on",
                         "switch.qsfp": "on", "switch.fan_a": "off"}
    offs = {e for s, e in ha.service_calls() if s == "turn_off"}
    assert offs == {"switch.node1", "switch.fan_a"}  # overlap left alone
    assert ha.hard_cuts == []
    assert "left running: node2, switch.qsfp" in out


def test_an_entity_that_never_switches_is_reported_and_exits_1(fresh_cluster, tmp_path, ha,
                                                               capsys):
    # the rack never switches, whatever the load: a short confirm timeout only ends the
    # wait sooner (the others switch as they are asked, so their first read says so)
    site = make_site(fresh_cluster, tmp_path, ha, ha_table=ha.toml(confirm_timeout=2))
    ha.refuse.add("switch.rack")
    code = main(site.cli("power", "off", "--yes"))
    out, err = capsys.readouterr()
    assert code == 1
    assert "not done:" in err and "switch.rack" in err and "still reads 'on'" in err
    assert "done:" in out and "switch.node1" in out
    assert ha.states["switch.node1"] == ha.states["switch.node2"] == "off"
    assert ha.hard_cuts == []


def test_a_node_that_never_goes_down_keeps_its_power(fresh_cluster, tmp_path, ha):
    site = make_site(fresh_cluster, tmp_path, ha, shutdown_timeout=1.5)
    site.node("node2").set_power(ignore=True)  # accepts the command, keeps running
    result = _run(_power(site, "off", "test"))
    assert not result.ok
    assert not site.node("node1").running and site.node("node2").running
    offs = [e for s, e in ha.service_calls() if s == "turn_off"]
    assert offs == ["switch.node1"]  # neither node2's entity nor the rack switch
    missed = {(o.action, o.target): str(o.detail) for o in result.not_done}
    assert "still answers SSH" in missed[("shutdown", "node2")]
    assert "did not go down: node2" in missed[("power_off", "switch.node2")]
    assert "did not go down: node2" in missed[("power_off", "switch.rack")]
    assert ha.hard_cuts == []


def test_a_refused_power_off_command_is_reported_and_the_node_keeps_power(
        fresh_cluster, tmp_path, ha):
    site = make_site(fresh_cluster, tmp_path, ha)
    site.node("node1").set_power(fail="sudo: a password is required")
    result = _run(_power(site, "off", "test"))
    missed = {(o.action, o.target): str(o.detail) for o in result.not_done}
    assert "a password is required" in missed[("shutdown", "node1")]
    assert ("power_off", "switch.node1") in missed and site.node("node1").running
    assert ha.states["switch.node2"] == "off" and ha.states["switch.node1"] == "on"


def test_an_extra_shared_with_a_running_cluster_stays_on(fresh_cluster, tmp_path, ha):
    site = make_site(fresh_cluster, tmp_path, ha, n=3,
                     clusters={"a": ["node1", "node2"], "b": ["node3"]},
                     extras={"a": ["switch.qsfp"], "b": ["switch.qsfp"]})
    result = _run(_power(site, "off", "a"))
    assert ha.states["switch.qsfp"] == "on" and site.node("node3").running
    (missed,) = result.not_done
    assert (missed.target, str(missed.detail)) == ("switch.qsfp",
                                              "kept on: still answering SSH: node3")
    assert missed.detail == said(PowerSaid.KEPT_ON,
                                 reason=said(PowerSaid.STILL_UP, nodes=["node3"]))
    assert ha.states["switch.node1"] == ha.states["switch.node2"] == "off"


def test_an_unknown_entity_stops_everything_before_the_first_node(test_cluster, tmp_path, ha,
                                                                   capsys):
    site = make_site(test_cluster, tmp_path, ha, extras={"test": ["switch.ghost"]})
    del ha.states["switch.ghost"]
    code = main(site.cli("power", "off", "--yes"))
    err = capsys.readouterr().err
    assert code == 1 and "unknown entity switch.ghost" in err
    assert "nothing was done" in err
    assert site.power_off_calls() == [] and ha.service_calls() == []


def test_missing_home_assistant_table_exits_2_and_says_what_to_add(test_cluster, tmp_path, ha,
                                                                   capsys):
    site = make_site(test_cluster, tmp_path, ha, ha_table="")
    for action in (["off"], ["on"], ["switch", "--from", "test", "--to", "test"]):
        code = main(site.cli("power", *action, "--yes"))
        err = capsys.readouterr().err
        assert code == 2
        assert "[home_assistant]" in err and "url" in err and "token" in err
        assert str(site.config_path) in err
    assert site.power_off_calls() == [] and ha.calls == []


def test_a_bad_token_is_refused_before_anything_and_never_shown(test_cluster, tmp_path, ha,
                                                                capsys):
    wrong = "wrong-T0ken-should-never-print"
    site = make_site(test_cluster, tmp_path, ha, ha_table=ha.toml(token=wrong))
    code = main(site.cli("power", "off", "--yes"))
    out, err = capsys.readouterr()
    assert code == 1 and "Home Assistant refused the token" in err
    assert wrong not in out + err and TOKEN not in out + err
    assert site.power_off_calls() == [] and ha.service_calls() == []
    assert site.node("node1").running


def test_unreachable_home_assistant_is_named_by_url(test_cluster, tmp_path, ha, capsys):
    ha.stop()  # nothing listens on its port any more
    site = make_site(test_cluster, tmp_path, ha)
    code = main(site.cli("power", "on", "--yes"))
    err = capsys.readouterr().err
    assert code == 1 and f"Home Assistant unreachable at {ha.url}" in err
    assert TOKEN not in err


def test_without_confirmation_nothing_happens(fresh_cluster, tmp_path, ha, capsys, headless):
    site = make_site(fresh_cluster, tmp_path, ha, n=3, down=("node3",),
                     clusters={"a": ["node1", "node2"], "b": ["node2", "node3"]})
    for action in (["off", "-c", "a"], ["on", "-c", "b"],
                   ["switch", "--from", "a", "--to", "b"]):
        code = main(site.cli("power", *action))
        err = capsys.readouterr().err
        assert code == 3 and "--yes" in err
    assert ha.calls == []
    assert site.power_off_calls() == []
    assert site.node("node1").running and site.node("node2").running


class _Terminal:
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_cluster_name_must_be_typed(fresh_cluster, tmp_path, ha, capsys,
                                                      monkeypatch):
    site = make_site(fresh_cluster, tmp_path, ha)
    monkeypatch.setattr("sys.stdin", _Terminal())
    answers = iter(["tes", "test"])
    prompts = []
    monkeypatch.setattr("builtins.input", lambda prompt: prompts.append(prompt) or next(answers))
    assert main(site.cli("power", "off")) == 3
    assert ha.calls == [] and site.power_off_calls() == []
    assert main(site.cli("power", "off")) == 0
    assert "Type the cluster name 'test' to power it off" in prompts[0]
    assert not site.node("node1").running and ha.states["switch.node1"] == "off"
    capsys.readouterr()


def test_power_goes_off_only_after_the_delay_and_a_last_look(fresh_cluster, tmp_path, ha):
    site = make_site(fresh_cluster, tmp_path, ha, ha_table=ha.toml(shutdown_delay=1))
    times: dict[str, float] = {}

    def sink(event):
        times.setdefault(f"{event.step} {event.node or event.entity} {event.state}",
                         time.monotonic())
        if (event.step, event.state) == ("delay", "waiting"):
            site.node("node2").start()  # node2 boots again while power is about to go

    result = _run(_power(site, "off", "test", recorder=sink))
    assert times["power_off node1 started"] - times["halt node1 ok"] >= 1.0
    assert times["power_off node1 started"] - times["halt node2 ok"] >= 1.0
    assert ha.states["switch.node1"] == "off" and ha.states["switch.node2"] == "on"
    missed = {(o.action, o.target): str(o.detail) for o in result.not_done}
    assert missed[("power_off", "switch.node2")] == "kept on: still answering SSH: node2"
    assert ha.states["switch.rack"] == "on"  # node2 needs it
    assert missed[("power_off", "switch.rack")] == "kept on: still answering SSH: node2"
    assert ha.hard_cuts == []
