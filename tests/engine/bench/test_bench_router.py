"""sparktui bench through the cluster's router (the real SMG router in front of the
test engine, on real sshd hosts and dockerd, driven by the real aiperf): the load goes
where the cluster's clients go, the result says so, and ``--via head`` goes around it."""

from __future__ import annotations

import asyncio
import json

from bench_support import bench_setup
from hosts.testimage import router as router_image
from lookalike import Why
from polling import eventually
from site_support import _prepend_top_level, requests_served, toy_recipe

from sparktui.cli import main

# A look-alike, not the real vLLM (tests/lookalike.py): the bench figures are checked against rates
# the test sets.
LOOKALIKE = Why.FIGURES

ROUTER_PORT, ENGINE_PORT = 30475, 30476


async def _routed_models(s) -> list[str]:
    engine = s.engine()
    try:
        router = (await engine.health("test")).router
    finally:
        await engine.close()
    return list(router.models) if router is not None and router.ready else []


def test_bench_goes_through_the_router_when_it_holds_the_model(site, tmp_path, monkeypatch,
                                                               capsys):
    router_image.required()
    tokenizer = bench_setup(tmp_path, monkeypatch)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # the router's key
    s = site(1, extra_toml=f"[clusters.router]\nport = {ROUTER_PORT}\n"
                           "ready_timeout_seconds = 600\n")
    node = s.hosts.node("node1")
    _prepend_top_level(s.config_path, f'home_dir = "{node.home}"\n')
    router_image.install(node)
    node.set_engine(ttft=0.02, tpot=0.005)
    s.recipe("toy", toy_recipe(port=ENGINE_PORT, nodes=1))
    assert main(s.cli("serve", "toy")) == 0
    engine, router = f"http://{node.addr}:{ENGINE_PORT}", f"http://{node.addr}:{ROUTER_PORT}"

    def bench(*args: str) -> tuple[dict, str]:
        capsys.readouterr()
        assert main(s.cli("bench", "toy", "--tokenizer", str(tokenizer), "--concurrency", "2",
                          "--requests", "6", "--input-tokens", "8", "--output-tokens", "6",
                          "--json", *args)) == 0
        printed = capsys.readouterr()
        return json.loads(printed.out), printed.err

    # SMG lists a worker's models once it has looked at the worker, which a loaded machine
    # may finish after serve returned: this test is about a router that holds the model.
    eventually(lambda: "org/toy" in asyncio.run(_routed_models(s)),
               what="the router lists org/toy")
    before = requests_served(engine)
    routed, said = bench()  # auto: the router holds org/toy
    assert (routed["via"], routed["url"]) == ("router", router), routed
    assert f"benchmarking toy through the router at {router} with aiperf" in said
    # the router's key went with the load (the router wants it), and into no record
    key = next((tmp_path / "state" / "sparktui" / "router").glob("*.key")).read_text().strip()
    assert key not in json.dumps(routed) and key not in said
    [lv] = routed["levels"]
    assert (lv["requests"], lv["errors"]) == (6, 0), lv
    # the router passed every request on to the engine behind it
    assert requests_served(engine) - before >= 6

    straight, said = bench("--via", "head")
    assert (straight["via"], straight["url"]) == ("head", engine), straight
    assert f"benchmarking toy at {engine} with aiperf" in said
    assert main(s.cli("bench", "--compare", routed["id"], straight["id"])) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines()]
    assert ["via", "router", "->", "head"] in rows, out
    assert ["url", router, "->", engine] in rows, out
    assert main(s.cli("stop", "--yes")) == 0
