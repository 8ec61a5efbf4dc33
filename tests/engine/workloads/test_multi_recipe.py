"""Several recipes at once on one cluster, on real sshd hosts and dockerd: the shares of
node memory the engines claim (labels read back from the nodes), the head's port, stop
one recipe, health and telemetry per engine.

The toy model has no weights in the HF cache, so the fit says "unknown" for every
recipe here: the refusals below come from the share flags alone. The share rule does
not depend on the node's memory (the test machine's MemTotal is whatever it is); the
refusal only quotes it.
"""

from __future__ import annotations

import json
import shlex

from lookalike import Why
from site_support import toy_recipe

from sparktui.cli import main

# A look-alike, not the real vLLM (tests/lookalike.py): several recipes side by side with memory
# shares; 2-node groups.
LOOKALIKE = (Why.SPEED, Why.MULTI_NODE)


def _recipe(port: int, share: float) -> str:
    return toy_recipe(port=port, nodes=1,
                      extra=f'args = ["--gpu-memory-utilization", "{share}"]')


def _runs(hosts, node: str, name: str) -> list[list[str]]:
    return [a for a in hosts.recorded_docker(node)
            if a[:2] == ["docker", "run"] and f"sparktui.recipe={name}" in a]


def _names(hosts, node: str) -> list[str]:
    return sorted(hosts.ssh(node, "docker ps --format '{{.Names}}'").stdout.split())


def test_recipes_side_by_side_shares_port_stop_one_and_health(site, capsys):
    s = site(2)
    s.recipe("alpha", _recipe(30051, 0.3))
    s.recipe("beta", _recipe(30052, 0.4))
    s.recipe("gamma", _recipe(30053, 0.3))  # 0.3 + 0.4 + 0.3 = 1.0 > 0.9
    s.recipe("delta", _recipe(30051, 0.1))  # alpha's port
    assert main(s.cli("serve", "alpha")) == 0
    assert main(s.cli("serve", "beta")) == 0
    out = capsys.readouterr().out
    assert "alpha holds 0.3 (port 30051)" in out and "beta asks 0.4: 0.7 <= 0.9" in out
    label = s.hosts.ssh("node1", "docker inspect --format "
                        "'{{index .Config.Labels \"sparktui.mem_share\"}}' sparktui-beta")
    assert label.stdout.strip() == "0.4"  # written at launch, read back by discovery

    assert main(s.cli("serve", "gamma")) == 4
    err = capsys.readouterr().err
    assert "alpha holds 0.3 (port 30051)" in err and "beta holds 0.4 (port 30052)" in err
    assert "gamma asks 0.3: 1 > 0.9" in err and "node1" in err and "GiB" in err
    assert "nothing was started" in err
    assert _runs(s.hosts, "node1", "gamma") == []

    assert main(s.cli("serve", "delta")) == 1
    err = capsys.readouterr().err
    assert "port 30051 on node1 is held by recipe alpha (sparktui-alpha)" in err
    assert _runs(s.hosts, "node1", "delta") == []
    assert _names(s.hosts, "node1") == ["sparktui-alpha", "sparktui-beta"]

    assert main(s.cli("health", "--json")) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["recipes"] == ["alpha", "beta"]
    node1 = next(n for n in data["nodes"] if n["node"] == "node1")
    engines = {e["recipe"]: e for e in node1["engines"]}
    assert sorted(engines) == ["alpha", "beta"]
    assert engines["alpha"]["port"] == 30051 and engines["beta"]["port"] == 30052
    assert all(e["ready"] and e["models"] == ["org/toy"] for e in engines.values())
    shares = {w["recipe"]: w["mem_share"] for w in node1["workloads"]}
    assert shares == {"alpha": 0.3, "beta": 0.4}
    figures = {e["recipe"]: e for e in data["telemetry"]["engines"]}
    assert sorted(figures) == ["alpha", "beta"]
    assert {f["port"] for f in figures.values()} == {30051, 30052}
    assert all(f["error"] is None and f["kv_cache"] is not None for f in figures.values())

    assert main(s.cli("health")) == 0
    out = capsys.readouterr().out
    assert "node1 alpha:30051" in out and "node1 beta:30052" in out

    assert main(s.cli("logs", "--tail", "5")) == 0
    out = capsys.readouterr().out
    assert "node1/alpha | " in out and "node1/beta | " in out  # whose line it is
    assert main(s.cli("logs", "--tail", "5", "--recipe", "beta")) == 0
    out = capsys.readouterr().out
    assert out and all(line.startswith("node1 | ") for line in out.splitlines())

    assert main(s.cli("stop", "--yes", "--recipe", "alpha")) == 0
    assert _names(s.hosts, "node1") == ["sparktui-beta"]
    capsys.readouterr()
    assert main(s.cli("health", "--json")) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["recipes"] == ["beta"]
    assert main(s.cli("serve", "gamma")) == 0  # 0.4 + 0.3 fits once alpha is gone
    assert main(s.cli("stop", "--yes")) == 0
    assert _names(s.hosts, "node1") == []


def test_force_serves_past_the_shares_with_a_warning(site, capsys):
    s = site(2)
    s.recipe("alpha", _recipe(30061, 0.6))
    s.recipe("beta", _recipe(30062, 0.6))
    assert main(s.cli("serve", "alpha")) == 0
    assert main(s.cli("serve", "beta")) == 4
    assert main(s.cli("serve", "beta", "--force")) == 0
    out = capsys.readouterr().out
    assert "beta asks 0.6: 1.2 > 0.9" in out
    assert _names(s.hosts, "node1") == ["sparktui-alpha", "sparktui-beta"]
    assert main(s.cli("stop", "--yes")) == 0


def test_two_multi_node_groups_cannot_share_a_head(site, capsys):
    """Both groups would rendezvous on node1's fixed port (vLLM's --master-port 29501,
    which sparktui owns): the test engine's head listens there, as torch's TCPStore does."""
    s = site(2)
    share = 'args = ["--gpu-memory-utilization", "0.3"]'
    s.recipe("alpha", toy_recipe(port=30081, nodes=2, extra=share))
    s.recipe("beta", toy_recipe(port=30082, nodes=2, extra=share))
    assert main(s.cli("serve", "alpha")) == 0
    assert main(s.cli("serve", "beta")) == 1
    err = capsys.readouterr().err
    assert "rendezvous port 29501" in err and "node1" in err and "held by recipe alpha" in err
    assert _runs(s.hosts, "node1", "beta") == [] and _runs(s.hosts, "node2", "beta") == []
    assert main(s.cli("stop", "--yes")) == 0


def _by_hand(s, name: str, port: int, args: list[str]) -> None:
    """A container with sparktui's labels but no sparktui.mem_share (as an older
    sparktui launched it): its share comes from the argv docker inspect reports."""
    labels = [f"--label=sparktui.{k}={v}" for k, v in {
        "recipe": name, "cluster": "test", "node": "node1", "rank": 0, "role": "head",
        "port": port, "after_stop": "[]"}.items()]
    argv = ["docker", "run", "-d", "--name", f"sparktui-{name}", *labels, "vllm:test",
            "vllm", "serve", "org/toy", "--host", "0.0.0.0", "--port", str(port), *args]
    done = s.hosts.ssh("node1", shlex.join(argv))
    assert done.returncode == 0, done.stderr


def test_a_share_read_from_the_argv_and_an_unknown_share(site, capsys):
    s = site(2)
    _by_hand(s, "legacy", 30071, ["--gpu-memory-utilization", "0.7"])
    s.recipe("alpha", _recipe(30072, 0.3))
    assert main(s.cli("serve", "alpha")) == 4
    err = capsys.readouterr().err
    assert "legacy holds 0.7 (port 30071)" in err and "alpha asks 0.3: 1 > 0.9" in err
    assert _runs(s.hosts, "node1", "alpha") == []

    _by_hand(s, "mystery", 30073, [])  # no flag: the engine's default, unknown to us
    s.recipe("small", _recipe(30074, 0.1))
    assert main(s.cli("serve", "small")) == 4
    err = capsys.readouterr().err
    assert "mystery holds an unknown share" in err and "sparktui-mystery" in err
    assert main(s.cli("stop", "--yes")) == 0
