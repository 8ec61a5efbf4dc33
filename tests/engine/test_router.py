"""The cluster's router on real sshd hosts and dockerd: the real SMG router
(tests/hosts/testimage/router.py) in front of two recipes served side by side, its
workers remade by serve and stop, streaming passed through to the right engine."""

from __future__ import annotations

import json
import urllib.request

from hosts.testimage import router as router_image
from lookalike import Why
from polling import eventually
from site_support import _prepend_top_level, requests_served, toy_recipe

from sparktui.cli import main
from sparktui.engine.api import StepState
from sparktui.engine.progress import ProgressLog
from sparktui.engine.router import _listed
from sparktui.plan.router import Backend

# A look-alike, not the real vLLM (tests/lookalike.py): an SGLang recipe behind SMG; recipes served
# and stopped side by side.
LOOKALIKE = (Why.SGLANG, Why.SPEED)

ROUTER_PORT = 30470
KEY = "router-key-of-the-tests-0123456789"
ROUTER = (f"[clusters.router]\nport = {ROUTER_PORT}\nready_timeout_seconds = 600\n"
          f'api_key = "{KEY}"\n')


def _router_site(site):
    """A one-node site whose cluster has the router, its image on the node."""
    router_image.required()
    s = site(1, extra_toml=ROUTER)
    node = s.hosts.node("node1")
    # ssh_user's home on the node (the nodes share this machine's file system)
    _prepend_top_level(s.config_path, f'home_dir = "{node.home}"\n')
    router_image.install(node)
    return s, node


def _recipe(port: int, served: str) -> str:
    return toy_recipe(port=port, nodes=1, extra=(
        f'args = ["--served-model-name", "{served}", "--gpu-memory-utilization", "0.3"]'))


def _models(base: str) -> list[str]:
    with urllib.request.urlopen(f"{base}/models", timeout=30) as answer:
        return sorted(m["id"] for m in json.load(answer)["data"])


def _stream(base: str, model: str) -> list[dict]:
    body = json.dumps({"model": model, "stream": True, "max_tokens": 4,
                       "messages": [{"role": "user", "content": "hi"}]}).encode()
    request = urllib.request.Request(f"{base}/chat/completions", data=body,
                                     headers={"Content-Type": "application/json",
                                              "Authorization": f"Bearer {KEY}"})
    chunks = []
    with urllib.request.urlopen(request, timeout=120) as answer:
        assert answer.headers["Content-Type"].startswith("text/event-stream")
        for raw in answer:
            line = raw.decode().strip()
            if line.startswith("data: ") and line != "data: [DONE]":
                chunks.append(json.loads(line[len("data: "):]))
    return chunks


def test_the_router_lists_routes_streams_and_drops_a_stopped_recipe(site, capsys):
    s, node = _router_site(site)
    s.recipe("alpha", _recipe(30461, "org/alpha"))
    s.recipe("beta", _recipe(30462, "org/beta"))
    base = f"http://{s.hosts.node('node1').addr}:{ROUTER_PORT}/v1"

    assert main(s.cli("serve", "alpha")) == 0
    assert main(s.cli("serve", "beta")) == 0
    out = capsys.readouterr().out
    assert f"{base}: org/alpha, org/beta" in out  # the router step, once both serve
    assert _models(base) == ["org/alpha", "org/beta"]
    args = node.containers()["sparktui--router"]["Args"]
    workers = args[args.index("--worker-urls") + 1:]
    assert workers == [f"http://{node.addr}:30461", f"http://{node.addr}:30462"]

    engines = {"org/alpha": f"http://{node.addr}:30461", "org/beta": f"http://{node.addr}:30462"}
    for served in ("org/alpha", "org/beta"):
        before = {m: requests_served(url) for m, url in engines.items()}
        chunks = _stream(base, served)
        text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks
                       if c.get("choices"))
        assert text == "Hello world world world"  # the engine's 4 tokens, as it sent them
        assert len(chunks) >= 4 and {c["model"] for c in chunks} == {served}
        after = {m: requests_served(url) for m, url in engines.items()}
        assert {m: after[m] - before[m] for m in engines} == {
            m: 1 if m == served else 0 for m in engines}  # that recipe's engine, only it

    assert main(s.cli("health", "--json")) == 0
    router = json.loads(capsys.readouterr().out)["router"]
    assert router["ready"] and router["models"] == ["org/alpha", "org/beta"]
    assert router["address"] == base and router["node"] == "node1"

    assert main(s.cli("stop", "--yes", "--recipe", "alpha")) == 0
    capsys.readouterr()
    assert _models(base) == ["org/beta"]
    args = node.containers()["sparktui--router"]["Args"]
    assert args[args.index("--worker-urls") + 1:] == [f"http://{node.addr}:30462"]
    assert main(s.cli("health")) == 0
    assert f"router {base} on node1: running; models org/beta" in capsys.readouterr().out

    assert main(s.cli("stop", "--yes")) == 0
    assert "nothing serves: the router is removed" in capsys.readouterr().out
    eventually(lambda: "sparktui--router" not in s.hosts.node("node1").containers(),
               what="the router removed")


def test_a_look_that_misses_the_head_serve_just_saw_ready_does_not_remove_the_router(
        site, capsys):
    """The serve saw the head answer /v1/models; the look after it (for the router's
    workers) times out on a busy node. A failed look is not "nothing serves": it is
    looked at again, and the router comes up with the head. The look-alike's
    STANDIN_MODELS_HANGS leaves the two /v1/models after its first unanswered (a real
    engine cannot be made to miss exactly those looks)."""
    s, node = _router_site(site)
    s.recipe("alpha", toy_recipe(port=30463, nodes=1, env='STANDIN_MODELS_HANGS = "2"', extra=(
        'args = ["--served-model-name", "org/alpha", "--gpu-memory-utilization", "0.3"]')))
    base = f"http://{node.addr}:{ROUTER_PORT}/v1"
    assert main(s.cli("serve", "alpha")) == 0
    out = capsys.readouterr().out
    assert "left out of the router" not in out and "router is removed" not in out, out
    assert f"{base}: org/alpha" in out, out
    assert _models(base) == ["org/alpha"]
    assert main(s.cli("stop", "--yes")) == 0


def test_a_node_that_does_not_answer_is_never_read_as_nothing_serves(site, capsys):
    """A stop leaves no head the router can see, but node2's docker does not answer: what
    it serves is unknown, so the router is left as it is, never removed."""
    router_image.required()
    s = site(2, extra_toml=ROUTER)
    node = s.hosts.node("node1")
    _prepend_top_level(s.config_path, f'home_dir = "{node.home}"\n')
    router_image.install(node)
    s.recipe("alpha", _recipe(30464, "org/alpha"))
    assert main(s.cli("serve", "alpha")) == 0
    router = node.containers()["sparktui--router"]["Id"]
    capsys.readouterr()
    s.hosts.node("node2").docker_down()
    assert main(s.cli("stop", "--yes", "--recipe", "alpha")) != 0  # node2 could not be stopped
    out = capsys.readouterr()
    assert "sparktui-alpha" not in node.containers(), out
    assert "the router is left as it is: what runs on node2 is not known" in out.out, out
    assert "router is removed" not in out.out, out
    assert node.containers()["sparktui--router"]["Id"] == router


def test_a_bad_router_table_is_refused_with_its_line(tmp_path, capsys):
    config = tmp_path / "config.toml"
    config.write_text('[[clusters]]\nname = "c"\nnodes = [{ name = "n1", ssh_ip = "10.0.0.1", '
                      'rank = 0 }]\n\n[clusters.router]\nport = 4000\nbogus = 1\n'
                      'node = "n9"\n')
    assert main(["--config", str(config), "health"]) == 2
    err = capsys.readouterr().err
    assert f"{config}:7" in err and "bogus" in err
    assert "Traceback" not in err
    config.write_text(config.read_text().replace("bogus = 1\n", ""))
    assert main(["--config", str(config), "health"]) == 2
    err = capsys.readouterr().err
    assert f"{config}:7" in err and "no node 'n9'" in err


def test_a_head_serving_several_names_is_waited_for_by_its_first_and_the_rest_said():
    """SMG takes a worker's model from the first entry of its /v1/models."""
    log = ProgressLog(lambda event: None)
    found = [Backend("org/a", "alpha", "http://10.0.0.1:1"),
             Backend("org/a-too", "alpha", "http://10.0.0.1:1"),
             Backend("org/b", "beta", "http://10.0.0.1:2")]
    assert _listed(found, "n1", log) == ["org/a", "org/b"]
    assert [(e.node, e.state, str(e.detail)) for e in log.events] == [
        ("n1", StepState.WARN, "alpha also serves org/a-too: the router routes it by its "
                               "first name only, org/a")]


def test_an_sglang_head_is_routed_like_a_vllm_one(site, capsys):
    """SMG tells the engines apart by their own routes (SGLang 0.5.23's /server_info):
    an SGLang recipe beside a vLLM one is listed and streamed to the same way."""
    s, node = _router_site(site)
    s.recipe("alpha", _recipe(30463, "org/alpha"))
    s.recipe("gamma", toy_recipe(engine="sglang", port=30464, nodes=1, extra=(
        'args = ["--served-model-name", "org/gamma", "--mem-fraction-static", "0.3"]')))
    base = f"http://{node.addr}:{ROUTER_PORT}/v1"
    assert main(s.cli("serve", "alpha")) == 0
    assert main(s.cli("serve", "gamma")) == 0
    capsys.readouterr()
    assert _models(base) == ["org/alpha", "org/gamma"]
    for served in ("org/alpha", "org/gamma"):
        chunks = _stream(base, served)
        text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks
                       if c.get("choices"))
        assert text == "Hello world world world" and {c["model"] for c in chunks} == {served}
    assert main(s.cli("stop", "--yes")) == 0
