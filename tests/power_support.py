"""Power tests: sshd test hosts whose mains power is a FakeHomeAssistant entity each."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hosts.home_assistant import FakeHomeAssistant

from sparktui.config.loaded import LoadedConfig
from sparktui.config.loader import load_config
from sparktui.engine.cluster import ClusterEngine
from sparktui.engine.power import control as power
from sparktui.engine.power import homeassistant

TOKEN = "tok-P0wer-5ecret-77c1a9"


@pytest.fixture
def ha() -> Iterator[FakeHomeAssistant]:
    with FakeHomeAssistant(TOKEN) as server:
        yield server


@pytest.fixture(autouse=True)
def fast_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(power, "POLL_SECONDS", 0.1)
    monkeypatch.setattr(homeassistant, "CONFIRM_POLL_SECONDS", 0.05)


@pytest.fixture
def headless(monkeypatch: pytest.MonkeyPatch) -> None:
    """No terminal: stdin is not a TTY (and reading it gives nothing)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))


@dataclass
class PowerSite:
    hosts: object
    ha: FakeHomeAssistant
    config_path: Path

    @property
    def loaded(self) -> LoadedConfig:
        return load_config(self.config_path)

    def engine(self) -> ClusterEngine:
        return ClusterEngine(self.loaded.config)

    def cli(self, *args: str) -> list[str]:
        return ["--lang", "en", "--config", str(self.config_path), *args]

    def node(self, name: str):
        return self.hosts.node(name)  # type: ignore[attr-defined]

    def power_off_calls(self) -> list[list[str]]:
        return [argv for n in self.hosts.nodes for argv in n.recorded_power()]  # type: ignore


def make_site(test_cluster, tmp_path: Path, ha: FakeHomeAssistant, *, n: int = 2,
              clusters: dict[str, list[str]] | None = None,
              extras: dict[str, list[str]] | None = None, down: tuple[str, ...] = (),
              ha_table: str | None = None, top: str = "", boot_delay: float = 0.3,
              shutdown_timeout: float = 5) -> PowerSite:
    """Nodes node1..nodeN, each powered by switch.<node>; ``down`` start powered off."""
    hosts = test_cluster(n)
    hosts.write_known_hosts()
    clusters = clusters or {"test": [node.name for node in hosts.nodes]}
    extras = extras if extras is not None else {"test": ["switch.rack"]}
    for node in hosts.nodes:
        entity = f"switch.{node.name}"
        ha.states[entity] = "off" if node.name in down else "on"
        ha.link(entity, node, boot_delay)
        if node.name in down:
            node.kill()
    for entity in {x for xs in extras.values() for x in xs}:
        ha.states.setdefault(entity, "on")
    lines = [
        f"ssh_user = {json.dumps(hosts.user)}",
        f"ssh_key_path = {json.dumps(str(hosts.key_path))}",
        f"known_hosts_path = {json.dumps(str(hosts.known_hosts_path))}",
        "connect_timeout_seconds = 10", "command_timeout_seconds = 15",
        "health_timeout_seconds = 5", f"shutdown_timeout_seconds = {shutdown_timeout}",
        "boot_timeout_seconds = 15",
        f"power_off_command = [{json.dumps(str(hosts.bin_dir / 'poweroff'))}]", top, ""]
    for name, members in clusters.items():
        lines += ["[[clusters]]", f"name = {json.dumps(name)}",
                  f"extra_entities = {json.dumps(extras.get(name, []))}", "nodes = ["]
        for rank, member in enumerate(members):
            node = hosts.node(member)
            lines.append(f'  {{ name = "{node.name}", ssh_ip = "{node.addr}", '
                         f'ssh_port = {node.port}, rank = {rank}, '
                         f'entity = "switch.{node.name}" }},')
        lines += ["]", ""]
    lines.append(ha.toml() if ha_table is None else ha_table)
    path = tmp_path / "config.toml"
    path.write_text("\n".join(lines) + "\n")
    return PowerSite(hosts, ha, path)
