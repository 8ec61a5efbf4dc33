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
from sparktui.said import (
    Code,
    Items,
    Layout,
    Percent,
    Said,
    Seconds,
    Size,
    joined,
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
