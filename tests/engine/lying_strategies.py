"""What a lying node may say, as hypothesis strategies (tests/engine/test_lying_node*.py).

Its words aim where sparktui listens: the docker listing (through the CLI or the API),
its labels (a node, a port, an after_stop that names another node or a command), the
engine's ``/health``, ``/v1/models`` and ``/metrics``, log bytes, and answers that are
huge, without end, or no answer at all. Text is laced with terminal controls.
"""

from __future__ import annotations

import json
from typing import Any

from hosts.lying import Answer, HttpLie
from hypothesis import strategies as st
from lying_support import HONEST_PORT, LIAR_PORT, PLANTED_MARK, VICTIM, Scene

PLANTED = f"touch {PLANTED_MARK}"
"""The command a liar's after_stop label asks for: it may run on the liar, nowhere else."""
CONTROLS = ["\x1b]0;retitled\x07", "\x1b[2J", "\x1bc", "\x1b(0", "\x9b31m", "\r", "\x07",
            "\x1b]52;c;ZXZpbA==\x07", "\x00", "\x85", "\u202e", "\u2028", "\x7f", "\x08",
            "\x1b[31m", "\x1bP+q\x1b\\"]
nasty = st.lists(st.one_of(st.sampled_from(CONTROLS), st.text(max_size=6)),
                 max_size=4).map("".join)
junk = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                    | nasty, lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(nasty, inner, max_size=3), max_leaves=6)


def _after_stop(run: str) -> str:
    return json.dumps([["command", run, "abort"]])


AFTER_STOPS = [_after_stop(PLANTED), json.dumps([["script", "no_such_script", "abort"]]),
               json.dumps([["command", PLANTED, "warn"], ["script", "x;y", "abort"]]),
               "[[", "[]", _after_stop("\x1b]0;retitled\x07")]
WORDS = ["node1", "node2", "nosuch", "test", "other", "head", "worker", "honest", "liar",
         str(HONEST_PORT), "0", "-1", "1e9", "", "dcgm-exporter", "node-exporter"]
LABEL_KEYS = ["recipe", "cluster", "node", "rank", "role", "port", "after_stop", "service",
              "service_index", "service_type", "mem_share", "metrics", "run", "run_id",
              "supervisor"]


def label_value(port: int) -> st.SearchStrategy[Any]:
    return st.one_of(st.sampled_from([*WORDS, str(port)]), st.sampled_from(AFTER_STOPS),
                     nasty, junk)


@st.composite
def labels(draw: st.DrawFn, port: int) -> dict[str, Any]:
    """Labels that mostly claim the cluster, a node, a head's role and the liar's port."""
    found: dict[str, Any] = {}
    if draw(st.integers(0, 3)):
        found.update({"sparktui.recipe": draw(st.sampled_from(["liar", "honest"])),
                      "sparktui.cluster": "test", "sparktui.role": "head",
                      "sparktui.port": str(port),
                      "sparktui.node": draw(st.sampled_from(["node1", "node2", "nosuch"]))})
        if draw(st.booleans()):
            found["sparktui.after_stop"] = draw(st.sampled_from(AFTER_STOPS))
    more = draw(st.dictionaries(st.sampled_from(LABEL_KEYS).map("sparktui.".__add__)
                                | nasty, label_value(port), max_size=4))
    return {**found, **more}


@st.composite
def container(draw: st.DrawFn, port: int) -> Any:
    """One item of ``docker inspect``: mostly its shape, some fields anything at all."""
    item: dict[str, Any] = {
        "Id": draw(st.sampled_from(["c0", "c1", "c2"]) | nasty),
        "Name": "/" + draw(st.sampled_from([VICTIM, "sparktui-honest", "sparktui-liar"])
                           | nasty),
        "Config": {"Labels": draw(labels(port)), "Image": draw(st.just("vllm:test") | nasty)},
        "State": {"Status": draw(st.sampled_from(["running", "exited", "created"]) | nasty),
                  "ExitCode": draw(st.integers(-1, 255) | junk),
                  "StartedAt": draw(st.just("2026-01-01T00:00:00Z") | nasty)},
        "RestartCount": draw(st.integers(0, 3) | junk),
        "Path": draw(st.just("vllm") | junk), "Args": draw(st.just(["serve"]) | junk)}
    for key in draw(st.sets(st.sampled_from(["Config", "State", "Name", "Id", "Args"]),
                            max_size=2)):
        item[key] = draw(junk)
    if draw(st.integers(0, 5)) == 0:
        item["Config"] = {"Labels": draw(junk)}  # a list for Labels, say
    return item if draw(st.integers(0, 6)) else draw(junk)


def sized(data: st.SearchStrategy[bytes]) -> st.SearchStrategy[Answer]:
    """An answer as it is, huge (repeated), without end, or no answer (within the bound)."""
    return st.one_of(
        data.map(Answer), data.map(Answer), data.map(Answer),
        st.builds(Answer, data, st.sampled_from([0, 1, 2, 125]), st.integers(2, 20_000)),
        st.builds(Answer, data | st.just(b""), st.just(0), st.none()))


raw = st.binary(max_size=64) | nasty.map(str.encode)


@st.composite
def docker_answers(draw: st.DrawFn, port: int) -> tuple[list[Any], bytes]:
    items = draw(st.lists(container(port), max_size=3))
    text = draw(st.sampled_from(["json", "json", "json", "raw", "error", "deep"]))
    data = {"json": json.dumps(items, ensure_ascii=draw(st.booleans())).encode(),
            "raw": draw(raw), "deep": b"[" * 50_000,
            "error": ("@@sparktui-docker-error@@\n" + draw(nasty)).encode()}[text]
    return items, data


def tmux_answer() -> st.SearchStrategy[bytes]:
    session = st.builds("== sparktui-{}\nSPARKTUI_LABEL_RECIPE=liar\nSPARKTUI_LABEL_CLUSTER=test\n"
                        "SPARKTUI_LABEL_NODE={}\nSPARKTUI_LABEL_AFTER_STOP={}\n{}\n".format,
                        nasty, st.sampled_from(["node1", "nosuch"]) | nasty,
                        st.sampled_from(AFTER_STOPS), nasty)
    return st.one_of(st.just(b""), session.map(str.encode), raw)


def http_lie(body: st.SearchStrategy[bytes]) -> st.SearchStrategy[HttpLie]:
    heads = st.sampled_from([b"HTTP/1.0 200 OK\r\n\r\n", b"HTTP/1.0 500 x\r\n\r\n", b"",
                             b"HTTP/1.0 200 OK\r\n", b"garbage\r\n\r\n",
                             b"HTTP/1.0 99999999999999999999 x\r\n\r\n"])
    return st.one_of(
        st.builds(HttpLie, body), st.builds(HttpLie, body), st.builds(HttpLie, body, heads),
        st.builds(HttpLie, body, st.just(b"HTTP/1.0 200 OK\r\n\r\n"), st.integers(2, 20_000)),
        st.builds(HttpLie, body | st.just(b""), st.just(b"HTTP/1.0 200 OK\r\n\r\n"),
                  st.none()))


models = st.one_of(
    st.lists(nasty | junk, max_size=3).map(
        lambda ids: json.dumps({"data": [{"id": i} for i in ids]}).encode()),
    junk.map(lambda j: json.dumps(j).encode()), raw)
metric_lines = st.lists(st.builds(
    "{}{{model_name=\"{}\"}} {}\n".format,
    st.sampled_from(["vllm:num_requests_running", "vllm:num_requests_waiting",
                     "vllm:kv_cache_usage_perc", "vllm:generation_tokens_total",
                     "vllm:time_to_first_token_seconds_bucket", "x"]) | nasty,
    nasty, st.sampled_from(["1", "1e308", "-1e308", "nan", "inf", "9" * 400]) | nasty),
    max_size=6).map(lambda lines: "".join(lines).encode())


@st.composite
def scenes(draw: st.DrawFn, port: int = LIAR_PORT) -> Scene:
    """One example: every answer node2 gives, through SSH, its API and its engine."""
    items, listing = draw(docker_answers(port))
    via_api = draw(st.booleans())
    answers = {
        "endpoint": Answer(draw(st.just(b"") | st.just(b"unix:///nonexistent\n") | raw)),
        "docker_list": draw(sized(st.just(listing))),
        "tmux_list": Answer(draw(tmux_answer())),
        "state": draw(sized(st.sampled_from([b"running 0", b"exited 1"]) | raw)),
        "logs": draw(sized(raw | st.just(b"line " + b"\x1b[2J" + b"\n"))),
        "signal": Answer(draw(raw), draw(st.sampled_from([0, 1]))),
        "stop": Answer(draw(raw), draw(st.sampled_from([0, 1]))),
        "remove": draw(sized(raw)), "telemetry": draw(sized(raw)),
        "other": Answer(draw(raw), draw(st.sampled_from([0, 1, 127])))}
    ids = json.dumps([{"Id": f"c{i}"} for i in range(len(items))]).encode()
    api = {"/containers/json": draw(http_lie(st.just(ids) | raw))}
    for i, item in enumerate(items):
        api[f"/containers/c{i}/json"] = draw(http_lie(st.just(json.dumps(item).encode())))
    http = {"/health": draw(http_lie(raw)), "/v1/models": draw(http_lie(models)),
            "/metrics": draw(http_lie(metric_lines | raw))}
    return Scene(answers, api, http, via_api)


# The attacks of issue 28, tried first by every property.
def _claims(node: str, **more: str) -> bytes:
    """A listing of one running head that says it is of this cluster, on ``node``."""
    labels = {"sparktui.recipe": "liar", "sparktui.cluster": "test", "sparktui.node": node,
              "sparktui.role": "head", "sparktui.port": str(LIAR_PORT),
              **{f"sparktui.{k}": v for k, v in more.items()}}
    return json.dumps([{"Id": "c0", "Name": f"/{VICTIM}", "Config": {"Labels": labels},
                        "State": {"Status": "running", "ExitCode": 0}}]).encode()


ESC = "\x1b]0;retitled\x07\x1b[2J\x9b31m\r"
PLANTS_ON_NODE1 = Scene({"docker_list": Answer(_claims("node1", after_stop=json.dumps(
    [["command", PLANTED, "abort"]])))})
"""Issue 28 item 1: node2's container says it is node1's, with an after_stop."""
NAMES_NO_NODE = Scene({"docker_list": Answer(_claims("nosuch"))})
CRAFTED_JSON = Scene({"docker_list": Answer(
    b'[null, {"Name": "/x", "Config": {"Labels": ["sparktui.recipe"]}}, '
    b'{"Name": "/y", "Config": {"Labels": {"sparktui.recipe": {"a": 1}}}}]')})
SPEAKS_CONTROLS = Scene(
    {"docker_list": Answer(_claims("node2")), "logs": Answer((ESC + "\n").encode() * 3)},
    http={"/v1/models": HttpLie(json.dumps({"data": [{"id": ESC}]}).encode()),
          "/health": HttpLie(b"ok")})
ENDLESS_HTTP = Scene({"docker_list": Answer(_claims("node2"))},
                     http={"/v1/models": HttpLie(b'{"data": [', repeat=None),
                           "/metrics": HttpLie(b"x" * 4096, repeat=None)})
