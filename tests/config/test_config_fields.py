"""config.toml: every field, its default, and where the file is looked for."""

from __future__ import annotations

import getpass
import socket
from pathlib import Path

import pytest
from plan_support import EXAMPLE_CONFIG, config_file, load_cfg, problem_of

from sparktui.config.discovery import find_config, recipe_dirs
from sparktui.config.hooks import HookEntry
from sparktui.config.loader import LOCAL_CLUSTER, builtin_config, load_config
from sparktui.resources import data_dir

FULL = """
ssh_user = "ops"
ssh_key_path = "~/.ssh/spark_ed25519"
known_hosts_path = "~/.config/sparktui/known_hosts"
home_dir = "/data/home/ops"
connect_timeout_seconds = 4
command_timeout_seconds = 12.5
health_timeout_seconds = 2
ready_timeout_seconds = 900

[[clusters]]
name = "pair"
master_ib_ip = "192.168.9.1"
gpus_per_node = 2
extra_entities = ["switch.qsfp", "switch.fan"]
nodes = [
  { name = "n1", ssh_ip = "10.1.0.1", ib_ip = "192.168.9.1", rank = 0, entity = "switch.n1" },
  { name = "n2", ssh_ip = "10.1.0.2", rank = 1, ssh_port = 2202, local = true },
]

[nccl."pair"]
ib_hca = "rocep1s0f1"
socket_ifname = "enp1s0f1np1"
ib_gid_index = 5
ib_disable = 1

[home_assistant]
url = "http://ha.example:8123"
token = "abc-long-lived-token"
shutdown_delay_seconds = 45
timeout_seconds = 3.5

[exec_aliases]
gpu = "nvidia-smi"
mem = "free -g"

[mount_aliases]
hf_cache = "/mnt/nas/hf"
jit = "/mnt/nas/jit"

[before_serve."pair"]
commands = [
  "sudo nvidia-smi -pm 1",
  { command = "sudo sysctl -w vm.swappiness=10", on_failure = "warn" },
  { script = "stop_dgx_services", on_failure = "warn" },
  { script = "restore_dgx_services" },
]
"""


def test_every_field_is_read(tmp_path: Path) -> None:
    cfg = load_cfg(tmp_path, FULL).config
    assert cfg.ssh_user == "ops"
    assert cfg.ssh_key_path == "~/.ssh/spark_ed25519"
    assert cfg.known_hosts_path == "~/.config/sparktui/known_hosts"
    assert cfg.home_dir == "/data/home/ops"
    assert cfg.connect_timeout_seconds == 4.0
    assert cfg.command_timeout_seconds == 12.5
    assert (cfg.health_timeout_seconds, cfg.ready_timeout_seconds) == (2.0, 900.0)
    (pair,) = cfg.clusters
    assert (pair.name, pair.master_ib_ip, pair.gpus_per_node) == ("pair", "192.168.9.1", 2)
    assert pair.extra_entities == ["switch.qsfp", "switch.fan"]
    n1, n2 = pair.nodes
    assert (n1.name, n1.ssh_ip, n1.ib_ip, n1.rank, n1.entity) == (
        "n1", "10.1.0.1", "192.168.9.1", 0, "switch.n1")
    assert (n1.ssh_port, n1.local) == (22, False)
    assert (n2.ssh_port, n2.local, n2.entity, n2.ib_ip) == (2202, True, None, "")
    nccl = cfg.nccl["pair"]
    assert (nccl.ib_hca, nccl.socket_ifname, nccl.ib_gid_index, nccl.ib_disable) == (
        "rocep1s0f1", "enp1s0f1np1", 5, 1)
    ha = cfg.home_assistant
    assert ha is not None
    assert (ha.url, ha.token.get_secret_value(), ha.shutdown_delay_seconds) == (
        "http://ha.example:8123", "abc-long-lived-token", 45)
    assert ha.timeout_seconds == 3.5
    assert cfg.exec_aliases == {"gpu": "nvidia-smi", "mem": "free -g"}
    assert cfg.mount_aliases == {"hf_cache": "/mnt/nas/hf", "jit": "/mnt/nas/jit"}
    assert cfg.hf_cache_host == "/mnt/nas/hf"


def test_before_serve_three_hook_forms(tmp_path: Path) -> None:
    hooks = load_cfg(tmp_path, FULL).config.before_serve["pair"].commands
    assert hooks == [
        HookEntry(command="sudo nvidia-smi -pm 1"),
        HookEntry(command="sudo sysctl -w vm.swappiness=10", on_failure="warn"),
        HookEntry(script="stop_dgx_services", on_failure="warn"),
        HookEntry(script="restore_dgx_services"),
    ]
    assert [(h.kind, h.run, h.on_failure) for h in hooks] == [
        ("command", "sudo nvidia-smi -pm 1", "abort"),
        ("command", "sudo sysctl -w vm.swappiness=10", "warn"),
        ("script", "stop_dgx_services", "warn"),
        ("script", "restore_dgx_services", "abort"),
    ]


MINIMAL = """
[[clusters]]
name = "one"
nodes = [{ name = "n", ssh_ip = "10.0.0.5", rank = 0 }]
"""


def test_defaults(tmp_path: Path) -> None:
    cfg = load_cfg(tmp_path, MINIMAL).config
    assert (cfg.ssh_user, cfg.home_dir) == ("root", "/root")
    assert cfg.ssh_key_path is None and cfg.known_hosts_path is None
    assert cfg.home_assistant is None
    assert (cfg.connect_timeout_seconds, cfg.command_timeout_seconds) == (10.0, 30.0)
    assert (cfg.health_timeout_seconds, cfg.ready_timeout_seconds) == (5.0, 1800.0)
    assert cfg.nccl == {} and cfg.exec_aliases == {} and cfg.mount_aliases == {}
    assert cfg.before_serve == {}
    (cluster,) = cfg.clusters
    assert (cluster.gpus_per_node, cluster.extra_entities, cluster.master_ib_ip) == (1, [], "")
    node = cluster.nodes[0]
    assert (node.ssh_port, node.local, node.entity, node.ib_ip) == (22, False, None, "")
    # without ib_ip the node talks on its ssh address; the master is rank 0's
    assert node.fabric_ip == "10.0.0.5"
    assert cluster.master_ip == "10.0.0.5"
    assert cfg.hf_cache_host == "/root/.cache/huggingface"


@pytest.mark.parametrize(("user", "home"), [("root", "/root"), ("ops", "/home/ops"),
                                            ("svc-llm", "/home/svc-llm")])
def test_home_dir_follows_ssh_user(tmp_path: Path, user: str, home: str) -> None:
    cfg = load_cfg(tmp_path, f'ssh_user = "{user}"\n' + MINIMAL).config
    assert cfg.home_dir == home
    assert cfg.expand_home("~/.cache/jit") == f"{home}/.cache/jit"
    assert cfg.expand_home("~") == home
    assert cfg.expand_home("/abs/~/x") == "/abs/~/x"
    assert cfg.expand_home("~other/x") == "~other/x"
    assert cfg.hf_cache_host == f"{home}/.cache/huggingface"


def test_home_assistant_defaults(tmp_path: Path) -> None:
    cfg = load_cfg(tmp_path, MINIMAL + '[home_assistant]\nurl = "http://h"\n'
                   'token = "t-long-lived-token"\n')
    ha = cfg.config.home_assistant
    assert ha is not None
    assert (ha.shutdown_delay_seconds, ha.timeout_seconds) == (30, 10.0)


def test_explicit_home_dir_wins(tmp_path: Path) -> None:
    cfg = load_cfg(tmp_path, 'ssh_user = "ops"\nhome_dir = "/srv/ops"\n' + MINIMAL).config
    assert cfg.expand_home("~/models") == "/srv/ops/models"


def test_master_ib_ip_and_ranked_order(tmp_path: Path) -> None:
    cfg = load_cfg(tmp_path, """
        [[clusters]]
        name = "c"
        nodes = [
          { name = "b", ssh_ip = "10.0.0.2", ib_ip = "192.168.0.2", rank = 1 },
          { name = "a", ssh_ip = "10.0.0.1", ib_ip = "192.168.0.1", rank = 0 },
        ]
    """).config
    cluster = cfg.clusters[0]
    assert [n.name for n in cluster.ranked] == ["a", "b"]
    assert cluster.master_ip == "192.168.0.1"


def test_example_config_loads() -> None:
    cfg = load_config(EXAMPLE_CONFIG).config
    assert [c.name for c in cfg.clusters] == ["2nodes", "2nodes-b", "4nodes-switch"]
    assert set(cfg.nccl) == {"2nodes", "2nodes-b", "4nodes-switch"}
    assert cfg.home_dir == "/home/ops"


# -- discovery -------------------------------------------------------------------------


@pytest.fixture
def places(tmp_path: Path) -> dict[str, Path]:
    dirs = {name: tmp_path / name for name in ("cwd", "home", "elsewhere")}
    for d in dirs.values():
        d.mkdir()
    return dirs


def _put(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(MINIMAL, encoding="utf-8")
    return path


def test_discovery_order(places: dict[str, Path]) -> None:
    cwd, home, elsewhere = places["cwd"], places["home"], places["elsewhere"]
    user_cfg = _put(home / ".config" / "sparktui" / "config.toml")
    local_cfg = _put(cwd / "config.toml")
    env_cfg = _put(elsewhere / "env.toml")
    explicit = _put(elsewhere / "explicit.toml")
    env = {"SPARKTUI_CONFIG": str(env_cfg)}
    assert find_config(explicit, environ=env, cwd=cwd, home=home) == explicit
    assert find_config(None, environ=env, cwd=cwd, home=home) == env_cfg
    assert find_config(None, environ={}, cwd=cwd, home=home) == local_cfg
    local_cfg.unlink()
    assert find_config(None, environ={}, cwd=cwd, home=home) == user_cfg
    user_cfg.unlink()
    assert find_config(None, environ={}, cwd=cwd, home=home) is None


def test_empty_env_var_is_ignored(places: dict[str, Path]) -> None:
    local_cfg = _put(places["cwd"] / "config.toml")
    found = find_config(None, environ={"SPARKTUI_CONFIG": ""}, cwd=places["cwd"],
                        home=places["home"])
    assert found == local_cfg


def test_env_var_to_missing_file_is_an_error(places: dict[str, Path]) -> None:
    _put(places["cwd"] / "config.toml")  # would be found next; must not be used silently
    missing = places["elsewhere"] / "gone.toml"
    err = problem_of(lambda: find_config(None, environ={"SPARKTUI_CONFIG": str(missing)},
                                         cwd=places["cwd"], home=places["home"]))
    assert err.exit_code == 2
    text = err.render()
    assert str(missing) in text and "SPARKTUI_CONFIG" in text


def test_explicit_missing_file_fails_on_load(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    assert find_config(missing, environ={}, cwd=tmp_path, home=tmp_path) == missing
    err = problem_of(lambda: load_config(missing))
    assert err.render() == f"{missing}: file not found"


def test_no_config_means_builtin_local_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "gethostname", lambda: "bench-7")
    loaded = load_config(None)
    assert loaded.builtin and loaded.source.path is None
    cfg = loaded.config
    (cluster,) = cfg.clusters
    assert cluster.name == LOCAL_CLUSTER == "local"
    (node,) = cluster.nodes
    assert (node.name, node.rank, node.local) == ("bench-7", 0, True)
    assert cfg.ssh_user == getpass.getuser()
    assert cfg.home_dir == str(Path.home())  # the operator's own home: nothing runs over SSH
    assert cfg.nccl == {}


def test_builtin_config_survives_empty_hostname(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "gethostname", lambda: "")
    assert builtin_config().clusters[0].nodes[0].name == "localhost"


def test_file_config_is_not_builtin(tmp_path: Path) -> None:
    loaded = load_config(config_file(tmp_path, MINIMAL))
    assert not loaded.builtin
    assert loaded.source.path == tmp_path / "config.toml"


def test_recipe_dirs_order(places: dict[str, Path]) -> None:
    cwd, home, elsewhere = places["cwd"], places["home"], places["elsewhere"]
    explicit = elsewhere / "mine"
    user_dir = home / ".config" / "sparktui" / "recipes"
    user_dir.mkdir(parents=True)
    (cwd / "recipes").mkdir()
    env = {"SPARKTUI_RECIPES": str(elsewhere / "from-env")}
    assert recipe_dirs(explicit, environ=env, cwd=cwd, home=home) == explicit
    assert recipe_dirs(None, environ=env, cwd=cwd, home=home) == elsewhere / "from-env"
    assert recipe_dirs(None, environ={}, cwd=cwd, home=home) == cwd / "recipes"
    (cwd / "recipes").rmdir()
    assert recipe_dirs(None, environ={}, cwd=cwd, home=home) == user_dir
    user_dir.rmdir()
    shipped = recipe_dirs(None, environ={}, cwd=cwd, home=home)
    assert shipped == data_dir("recipes")
    assert (shipped / "qwen3-235b-2node" / "recipe.toml").is_file()
