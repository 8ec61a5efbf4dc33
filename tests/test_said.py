"""A sentence as data (``sparktui.said``): words in the language active when it is shown,
the same code and values in JSON whatever the language."""

from __future__ import annotations

import importlib
import json
import pkgutil
import string

import pytest

import sparktui
from sparktui.engine.health import HealthSaid
from sparktui.engine.remote.transport import NodeError, Reason
from sparktui.engine.services.launch import ServiceSaid
from sparktui.engine.status import StatusSaid
from sparktui.i18n import install
from sparktui.plan.pull.model import ModelSaid
from sparktui.said import (
    KEPT_CHARS,
    Code,
    Duration,
    Gib,
    Items,
    Layout,
    Millis,
    Number,
    Percent,
    Said,
    Seconds,
    Size,
    joined,
    kept_json,
    said,
    text_from_json,
    text_json,
)


@pytest.fixture
def russian():
    install("ru")
    yield
    install("en")


def test_the_words_follow_the_language_and_the_json_does_not(russian) -> None:
    timeout = said(HealthSaid.NODE_TIMEOUT, seconds=Seconds(2.5))
    document = json.dumps(timeout.as_json())
    assert str(timeout) == "тайм-аут (2,5 с)"
    install("en")
    assert str(timeout) == "timeout (2.5 sec)"
    assert json.dumps(timeout.as_json()) == document
    assert json.loads(document) == {"code": "health_said.node_timeout",
                                    "params": {"seconds": 2.5}}


def test_values_keep_their_type_in_json_and_their_units_in_words() -> None:
    size, share = Size(3 << 30), Percent(0.42)
    assert (str(size), str(share)) == ("3.0\u00a0GiB", "42%")
    data = Said(Layout.COLON, {"head": size, "tail": share}).as_json()["params"]
    assert data == {"head": 3 << 30, "tail": 0.42}
    assert type(data["head"]) is int and type(data["tail"]) is float


def test_a_sentence_inside_a_sentence_is_nested_in_json_and_joined_in_words() -> None:
    why = [said(StatusSaid.DOCKER_SILENT, node="node1"), said(StatusSaid.NODE_SILENT, node="n2")]
    unknown = said(StatusSaid.UNKNOWN, why=Items(why, "; "))
    assert str(unknown) == "unknown: docker on node1 does not answer; n2 does not answer"
    assert unknown.as_json()["params"]["why"][1] == {"code": "status_said.node_silent",
                                                     "params": {"node": "n2"}}
    assert str(said(ServiceSaid.TERMINAL, names=["a", "b"])) == "terminal: a, b"


def test_a_plural_follows_its_count(russian) -> None:
    one = said(ServiceSaid.STARTING, name="etcd", type="etcd", n=1, phase="infra")
    five = said(ServiceSaid.STARTING, name="etcd", type="etcd", n=5, phase="infra")
    assert str(one) != str(five) and "5" in str(five)


def test_a_node_error_is_its_reason_and_detail_as_data() -> None:
    error = NodeError("node1", Reason.TIMEOUT, "5 s: docker ps")
    assert error.text == "timeout: 5 s: docker ps" and error.reason == "timeout"
    assert error.said.as_json() == {"code": "layout.colon", "params": {
        "head": {"code": "reason.timeout", "params": {}}, "tail": "5 s: docker ps"}}


def test_words_and_values_that_do_not_match_still_say_everything() -> None:
    odd = Said(HealthSaid.PORT_TIMEOUT, {"other": 1})
    assert str(odd) == "health_said.port_timeout: {'other': 1}"


def test_redacting_reaches_every_text_value() -> None:
    secret = said(Layout.COLON, head="token s3cr3t", tail=Items(["s3cr3t"], ", "))
    cleaned = secret.redacted(lambda text: text.replace("s3cr3t", "***"))
    assert str(cleaned) == "token ***: ***"


def every_code() -> list[type[Code]]:
    for module in pkgutil.walk_packages(sparktui.__path__, "sparktui."):
        if module.name != "sparktui.__main__":
            importlib.import_module(module.name)
    found, todo = [], list(Code.__subclasses__())
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo += cls.__subclasses__()
    return found


def test_every_code_is_one_of_a_kind_and_its_words_name_plain_fields() -> None:
    codes = every_code()
    assert len(codes) > 20
    names = [cls.__name__ for cls in codes]
    assert len(names) == len(set(names)), "two enums of codes share a name (and so codes)"
    for cls in codes:
        assert len(cls.__members__) == len(list(cls)), f"{cls.__name__} repeats its words"
        for member in cls:
            assert all(name.isidentifier() for name in member.fields), member
            if isinstance(member.value, tuple):  # both forms take the same values, and n
                fields = [{name for _text, name, _spec, _conv in string.Formatter().parse(form)
                           if name} for form in member.value]
                assert fields[0] == fields[1] and "n" in fields[0], member


def test_a_detail_read_back_from_json_is_the_same_sentence(russian) -> None:
    """A supervisor keeps a failure's detail on the head as its code (``text_json``); an
    operator in another language reads it back as the sentence, in theirs."""
    detail = joined(Layout.COLON, said(Reason.DOCKER_UNREACHABLE), "Cannot connect")
    back = text_from_json(json.loads(json.dumps(text_json(detail))))
    assert back == detail and str(back) == "docker недоступен: Cannot connect", str(back)
    install("en")
    assert str(back) == "docker unreachable: Cannot connect"
    assert text_from_json("what the node said") == "what the node said"
    # a code this sparktui does not know stays what was said, as its code; junk is nothing
    assert text_from_json({"code": "newer_said.thing", "params": {}}) == "newer_said.thing"
    assert text_from_json({"code": 3, "params": []}) == ""
    assert text_from_json(42) == ""
    deep: dict = {"code": "layout.value", "params": {"value": "x"}}
    for _ in range(20):
        deep = {"code": "layout.value", "params": {"value": deep}}
    assert isinstance(text_from_json(deep), Said)  # nesting past the limit is cut, not read


def _kept_and_read(value: Said) -> Said:
    back = text_from_json(json.loads(json.dumps(kept_json(value))))
    assert isinstance(back, Said)
    return back


def test_a_kept_sentence_says_its_values_in_their_units_when_read_back(russian) -> None:
    """A node keeps a sentence's typed values as numbers, their units beside them: read
    back, "96.0 GiB" is a size again, never the 103079215104 its JSON holds, in whichever
    language reads it (#31)."""
    short = said(ModelSaid.DISK_SHORT, node="node2", need=Size(96 << 30), repo="org/m",
                 folder="/hf", free=Size(3 << 30))
    figures = Said(Layout.LINES, {"head": Items([Seconds(2.5), Duration(5400)], "; "), "tail": [
        Percent(0.42), Millis(26.0), Gib(243.25), Number(1234.5, 1, fixed=True, signed=True)]})
    sentence = joined(Layout.COLON, short, figures)
    back = _kept_and_read(sentence)
    russian_words = str(sentence)
    assert str(back) == russian_words and "96,0" in russian_words, russian_words
    install("en")
    assert str(back) == str(sentence) == ("node2 needs 96.0\u00a0GiB for org/m in /hf but has "
                                          "3.0\u00a0GiB free: 2.5 sec; 1h 30m\n42%, 26 ms, "
                                          "243.2\u00a0GiB, +1,234.5"), str(back)
    assert back == sentence
    # the JSON a node keeps holds numbers, and what they are beside them; without the
    # units (what ``--json`` shows) the numbers would be read back bare
    kept = kept_json(short)
    assert kept["params"]["need"] == 96 << 30 and kept["units"] == {"need": "size",
                                                                    "free": "size"}
    assert {k: v for k, v in kept.items() if k != "units"} == text_json(short)
    assert "103079215104" in str(text_from_json(json.loads(json.dumps(text_json(short)))))


def test_units_read_from_a_node_are_untrusted() -> None:
    """A unit a node wrote that this version does not know, or that does not fit its
    value, leaves the value as JSON held it; a text kept is bounded."""
    def read(value: object, unit: object) -> object:
        return text_from_json({"code": "layout.value", "params": {"value": value},
                               "units": {"value": unit}}).params["value"]  # type: ignore

    assert type(read(5, "size")) is Size and type(read(5.0, "seconds")) is Seconds
    for value, unit in ((5, "lightyears"), ("5", "size"), (True, "size"), (5, "size.2"),
                        (5, "number.12"), (5, "number.2.bold"), (5, "gib.x"), (5, "gib.1.x"),
                        (5, ["size"]), (5, None), (["a"], "size"), (["a"], {"sep": "far too"}),
                        (["a"], {"of": "size"}), (float("inf"), "size")):
        assert read(value, unit) == value and type(read(value, unit)) is type(value), unit
    assert text_from_json({"code": "layout.value", "params": {"value": 1},
                           "units": "size"}).params["value"] == 1  # type: ignore
    number = read(1.5, "number.3.fixed.signed")
    assert isinstance(number, Number) and str(number) == "+1.500"
    long = said(Layout.VALUE, value="x" * 10_000)
    assert len(kept_json(long)["params"]["value"]) == KEPT_CHARS
    assert len(kept_json("y" * 10_000)) == KEPT_CHARS and kept_json(None) is None
