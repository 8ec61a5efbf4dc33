"""``--json`` is the same document in every language (#31): ``serve --json``'s lines,
``health --json``, ``bench --json``, ``supervise --end --json`` and ``doctor --json`` under
``--lang ru`` equal those under ``--lang en``, on the real test hosts, in situations where
the engine has sentences to say (a fit it cannot compute, a refused serve, a node whose
docker is down, an end of supervision beside it, a foreign container, doctor's details and
hints).

What differs between two runs by itself (times, figures, IDs) is set aside by key and by
shape; a sentence is never set aside: the documents must carry the codes the situation
calls for, so a sentence turned into words would show."""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stderr, redirect_stdout
from typing import Any

from bench_support import bench_setup
from engine.workloads.test_foreign import _plant
from lookalike import Why
from site_support import toy_recipe

from sparktui.cli import main
from sparktui.i18n import install

# A look-alike, not the real vLLM (tests/lookalike.py): the same serve, health and benchmark
# run twice, once per language; 2-node groups.
LOOKALIKE = (Why.SPEED, Why.MULTI_NODE)

LANGUAGES = ("en", "ru")
VOLATILE = {"checked_at", "at", "since", "updated", "healthy_since", "cleared", "started_at",
            "status", "id", "created_at", "latency_ms", "interval", "argv", "history"}
"""Keys whose values differ between two runs of the same thing: times, docker's own
"Up 3 seconds", a run's ID and its tool's folder."""
ID = re.compile(r"[0-9a-f]{12}|sha256:[0-9a-f]{64}|\d+ s")
"""A container ID, an image ID, the seconds a wait took: values, never words."""


def run(s, lang: str, *args: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        code = main(["--lang", lang, *s.cli(*args)])
    return code, out.getvalue()


def steady(value: Any, key: str = "") -> Any:
    """``value`` with what differs between two runs by itself set aside."""
    if key in VOLATILE:
        return "<volatile>"
    if isinstance(value, dict):
        return {k: steady(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [steady(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return "<number>"
    if isinstance(value, str) and ID.fullmatch(value):
        return "<id>"
    return value


def lines(text: str) -> set[str]:
    """``serve --json``'s lines, steady, each once: the nodes report at once (in either
    order), and a wait is said as often as it polls."""
    return {json.dumps(steady(json.loads(line)), sort_keys=True) for line in text.splitlines()}


def last(text: str) -> Any:
    return json.loads(text.splitlines()[-1])


def codes(document: Any) -> set[str]:
    """Every sentence's code in ``document`` (one a node keeps has its values' units)."""
    if isinstance(document, dict):
        found = ({document["code"]} if {"code", "params"} <= set(document)
                 <= {"code", "params", "units"} else set())
        return found.union(*(codes(v) for v in document.values()))
    if isinstance(document, list):
        return set().union(*(codes(v) for v in document))
    return set()


def settled(checks: list[dict]) -> list[dict]:
    """doctor's checks but the clock's, whose hint comes and goes with a loaded machine's
    round trip (its skew is a number: set aside by ``steady``)."""
    return [c for c in checks if c["name"] != "clock"]


def each_language(s, *args: str, between=None) -> tuple[list[int], list[str]]:
    results = []
    for lang in LANGUAGES:
        if between is not None:
            between()
        results.append(run(s, lang, *args))
    return [r[0] for r in results], [r[1] for r in results]


def test_json_is_the_same_document_in_every_language(fresh_site, tmp_path, monkeypatch):
    tokenizer = bench_setup(tmp_path, monkeypatch)
    s = fresh_site(2)
    s.recipe("toy", toy_recipe())
    node1 = s.hosts.node("node1")
    try:
        def stopped() -> None:
            assert main(s.cli("stop", "--yes")) == 0

        rcs, served = each_language(s, "serve", "toy", "--json", between=stopped)
        assert rcs == [0, 0], served
        en, ru = (lines(text) for text in served)
        assert ru == en
        assert {"probe_said.not_cached", "serve_said.waiting"} <= codes(
            [json.loads(line) for line in en]), en
        assert last(served[0])["result"] == last(served[1])["result"] == "served"

        rcs, refused = each_language(s, "serve", "toy", "--json")
        assert rcs == [1, 1], refused
        en, ru = (lines(text) for text in refused)
        assert ru == en and "serve_said.exists" in codes([json.loads(line) for line in en]), en

        bench = ("bench", "toy", "--tokenizer", str(tokenizer), "--input-tokens", "8",
                 "--output-tokens", "4", "--concurrency", "1", "--requests", "2", "--json")
        rcs, runs = each_language(s, *bench)
        assert rcs == [0, 0], runs
        en, ru = (json.loads(text) for text in runs)
        assert steady(ru) == steady(en) and en["levels"][0]["requests"] == 2
        rcs, compared = each_language(s, "bench", "--compare", en["id"], ru["id"], "--json")
        assert rcs == [0, 0] and json.loads(compared[0]) == json.loads(compared[1])

        _plant(s, "node2", "sparktui-ghost", {"recipe": "ghost", "cluster": "test",
                                              "node": "node9", "rank": "0", "role": "head"})
        node1.docker_down()  # the head's: what serves is unknown, and the deep check says so
        rcs, health = each_language(s, "health", "--json", "--deep")
        assert rcs == [1, 1], health
        en, ru = (json.loads(text) for text in health)
        assert steady(ru) == steady(en)
        assert {"status_said.unknown", "status_said.docker_silent",
                "foreign.other_node"} <= codes(en), en

        # the end of a supervision that is not there: the head's docker is down, so what
        # runs there is unknown, and its supervisor's container could not be looked for
        rcs, ended = each_language(s, "supervise", "--end", "--json")
        assert rcs == [0, 0], ended
        en, ru = (json.loads(text) for text in ended)
        assert steady(ru) == steady(en)
        assert {"layout.value", "reason.docker_unreachable"} <= codes(en), en
        assert en["unknown"]["code"] == "layout.value" and en["missed"] == [], en

        rcs, doctor = each_language(s, "doctor", "--json")
        assert rcs == [1, 1], doctor
        en, ru = (json.loads(text) for text in doctor)
        assert steady(settled(ru)) == steady(settled(en))
        by = {(c["node"], c["name"]): c for c in en}
        assert by[("node1", "docker")]["status"] == "fail"  # docker's own words, as they came
        assert by[("node1", "docker")]["hint"]["code"] == "doctor_said.start_daemon"
        assert {"doctor_said.docker_server", "doctor_said.memory", "doctor_said.disk_free",
                "doctor_said.skew", "layout.value"} <= codes(en), en
        assert all(isinstance(c["detail"], dict) for c in en  # a sentence, or a node's text
                   if c["name"] not in ("docker", "gpu", "nic lo")
                   and not c["name"].startswith("image ")), en
    finally:
        node1.docker_up()
        install("en")
