"""The router's guards on real sshd hosts and dockerd with the real SMG router
(tests/hosts/testimage/router.py): one model name is one recipe's unless the operator
says --share-model; SMG wants a key (kept 0600 on the operator's machine, never shown,
never in a command line) and its control routes another that nobody holds; its metrics
listen on the node's own address only."""

from __future__ import annotations

import json
import socket
import stat
import urllib.error
import urllib.request
from pathlib import Path

from hosts.testimage import router as router_image
from lookalike import Why
from site_support import _prepend_top_level, requests_served, toy_recipe

from sparktui.cli import main
from sparktui.plan.router import METRICS_PORT

# A look-alike, not the real vLLM (tests/lookalike.py): two recipes per test behind SMG (the real
# engine's SMG test: test_real_vllm.py).
LOOKALIKE = Why.SPEED

ROUTER_PORT, ALPHA_PORT, BETA_PORT = 30480, 30481, 30482


def _recipe(port: int, served: str) -> str:
    return toy_recipe(port=port, nodes=1, extra=(
        f'args = ["--served-model-name", "{served}", "--gpu-memory-utilization", "0.3"]'))


def _post(url: str, body: dict, key: str | None = None) -> int:
    headers = {"Content-Type": "application/json"}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            answer.read()
            return answer.status
    except urllib.error.HTTPError as exc:
        return exc.code


def _ask(base: str, model: str, key: str | None, times: int) -> list[int]:
    body = {"model": model, "max_tokens": 2, "messages": [{"role": "user", "content": "hi"}]}
    return [_post(f"{base}/v1/chat/completions", body, key) for _ in range(times)]


def _listening(port: int) -> set[str]:
    """The local addresses of every listening IPv4 TCP socket on ``port`` (/proc/net/tcp)."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        address, hex_port = local.split(":")
        if state == "0A" and int(hex_port, 16) == port:
            found.add(socket.inet_ntoa(bytes.fromhex(address)[::-1]))
    return found


def test_one_model_name_is_one_recipes_unless_shared_and_the_router_wants_its_key(
        site, capsys, tmp_path, monkeypatch):
    router_image.required()
    state = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    s = site(1, extra_toml=f"[clusters.router]\nport = {ROUTER_PORT}\n"
                           "ready_timeout_seconds = 600\n")
    node = s.hosts.node("node1")
    _prepend_top_level(s.config_path, f'home_dir = "{node.home}"\n')
    router_image.install(node)
    s.recipe("alpha", _recipe(ALPHA_PORT, "org/alpha"))
    s.recipe("beta", _recipe(BETA_PORT, "org/alpha"))
    base, alpha = f"http://{node.addr}:{ROUTER_PORT}", f"http://{node.addr}:{ALPHA_PORT}"
    beta = f"http://{node.addr}:{BETA_PORT}"
    printed: list[str] = []

    def run(*args: str) -> int:
        code = main(s.cli(*args))
        out = capsys.readouterr()
        printed.append(out.out + out.err)
        return code

    assert run("serve", "alpha") == 0
    # the router came up (its failure only warns: a later refused request would not say why)
    assert "router did not come up" not in printed[-1], printed[-1]
    assert "router was not updated" not in printed[-1], printed[-1]
    assert "left out of the router" not in printed[-1], printed[-1]
    kept = next((state / "sparktui" / "router").glob("*.key"))
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    key = kept.read_text().strip()
    assert len(key) >= 32

    # The same name again: refused before anything starts, exit 3, naming who serves it.
    assert run("serve", "beta") == 3
    refusal = printed[-1]
    assert "org/alpha is already served by recipe alpha on node1" in refusal, refusal
    assert "--share-model" in refusal
    assert "sparktui-beta" not in node.containers()
    before = requests_served(alpha)
    assert _ask(base, "org/alpha", key, 10) == [200] * 10
    assert requests_served(alpha) - before == 10  # every one, none taken by another head

    # The router's key: nothing without it, and the client key opens no control route.
    assert _ask(base, "org/alpha", None, 1) == [401]
    assert _ask(base, "org/alpha", "not-the-key-at-all", 1) == [401]
    worker = {"url": f"http://{node.addr}:1"}
    assert _post(f"{base}/workers", worker) == 401
    assert _post(f"{base}/workers", worker, key) == 401

    # --share-model: both serve, the router step says it balances them on purpose.
    assert run("serve", "beta", "--share-model") == 0
    assert "org/alpha is balanced between alpha (node1), beta (node1) on purpose " \
           "(--share-model)" in printed[-1], printed[-1]
    counts = {url: requests_served(url) for url in (alpha, beta)}
    assert _ask(base, "org/alpha", key, 10) == [200] * 10
    split = {url: requests_served(url) - counts[url] for url in (alpha, beta)}
    assert sum(split.values()) == 10 and min(split.values()) > 0, split

    # Metrics on the node's own address only, never every interface.
    info = node.containers()["sparktui--router"]
    args = info["Args"]
    assert args[args.index("--prometheus-host") + 1] == node.addr
    listening = _listening(METRICS_PORT)
    assert node.addr in listening and "0.0.0.0" not in listening, listening
    with urllib.request.urlopen(f"http://{node.addr}:{METRICS_PORT}/metrics", timeout=30):
        pass
    other = "127.0.0.1" if node.addr != "127.0.0.1" else "127.0.0.2"
    try:
        socket.create_connection((other, METRICS_PORT), timeout=5).close()
        raise AssertionError(f"the metrics answered on {other}")
    except ConnectionRefusedError:
        pass

    # The key shows nowhere: the output, the plan, the container, its process, its log.
    assert run("health") == 0
    assert run("plan", "alpha", "-f", "json") == 0
    assert run("plan", "alpha") == 0
    logs = node.daemon.api.call("GET", "/containers/sparktui--router/logs",
                                {"stdout": "1", "stderr": "1"})
    pid = node.container_pid("sparktui--router")
    assert pid is not None
    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode("utf-8", "replace")
    where = {"output": "\n".join(printed), "inspect": json.dumps(info),
             "log": str(logs), "cmdline": cmdline}
    assert {name: key in text for name, text in where.items()} == dict.fromkeys(where, False)
    keys_file = Path(node.home) / ".local/state/sparktui/router/keys"
    assert stat.S_IMODE(keys_file.stat().st_mode) == 0o600
    assert keys_file.read_text().split()[0] == key
    assert main(s.cli("stop", "--yes")) == 0


def test_restart_is_refused_before_the_stop_when_its_name_is_taken(site, capsys, tmp_path,
                                                                     monkeypatch):
    """Its serve after the stop would be refused: the recipe would be left down."""
    router_image.required()
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    s = site(1, extra_toml=f"[clusters.router]\nport = {ROUTER_PORT + 5}\n"
                           "ready_timeout_seconds = 600\n")
    node = s.hosts.node("node1")
    _prepend_top_level(s.config_path, f'home_dir = "{node.home}"\n')
    router_image.install(node)
    s.recipe("alpha", _recipe(ALPHA_PORT + 5, "org/alpha"))
    s.recipe("beta", _recipe(BETA_PORT + 5, "org/alpha"))
    assert main(s.cli("serve", "alpha")) == 0
    assert main(s.cli("serve", "beta", "--share-model")) == 0
    capsys.readouterr()
    assert main(s.cli("restart", "beta", "--yes")) == 3
    assert "org/alpha is already served by recipe alpha on node1" in capsys.readouterr().err
    assert node.containers()["sparktui-beta"]["State"]["Running"]  # untouched
    assert main(s.cli("restart", "beta", "--yes", "--share-model")) == 0
    assert main(s.cli("stop", "--yes")) == 0


CLUSTER = ('[[clusters]]\nname = "c"\nnodes = [{ name = "n1", ssh_ip = "10.0.0.1", '
           'rank = 0 }]\n\n[clusters.router]\nport = 4000\n')


def test_a_router_key_is_checked_like_the_home_assistant_token_and_never_shown(tmp_path,
                                                                               capsys):
    config = tmp_path / "config.toml"
    for value, why in (("short-key", "the key is shorter than 16 characters"),
                       ("a key with spaces in it", "the token must be printable ASCII")):
        config.write_text(CLUSTER + f'api_key = "{value}"\n')
        assert main(["--config", str(config), "health"]) == 2
        err = capsys.readouterr().err
        assert f"{config}:7" in err and "clusters[0].router.api_key" in err and why in err, err
        assert value not in err
    key = "the-router-key-0123456789abcdef"
    config.write_text(CLUSTER + f'api_key = "{key}"\n')
    recipes = tmp_path / "recipes" / "alpha"
    recipes.mkdir(parents=True)
    (recipes / "recipe.toml").write_text(_recipe(30011, "org/alpha"))
    for form in ("json", "text", "sh"):
        assert main(["--config", str(config), "--recipes", str(tmp_path / "recipes"),
                     "plan", "alpha", "-f", form]) == 0
        out = capsys.readouterr().out
        assert key not in out and ("sparktui--router" in out or form == "sh")
