"""The Hub's bodies are untrusted: any bytes, any JSON give figures or a ``HubError`` (a
reason, shown escaped), never another exception (sparktui.plan.fit.hub)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sparktui.plan.fit.hub import (
    HubError,
    Listing,
    in_folder,
    parse_index,
    parse_listing,
    parse_sizes,
)

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12)
SHAPED = st.fixed_dictionaries({"sha": JSON, "siblings": st.lists(
    st.fixed_dictionaries({"rfilename": JSON}), max_size=3)})


def _bodies(values: st.SearchStrategy) -> st.SearchStrategy[bytes]:
    return st.binary(max_size=64) | values.map(lambda v: json.dumps(v).encode())


@given(_bodies(JSON | SHAPED))
def test_any_model_info_is_a_listing_or_a_reason(body: bytes) -> None:
    try:
        listing = parse_listing(body, "main")
    except HubError as exc:
        assert exc.asked and exc.said.code.code == "hub_why.not_json"
        return
    assert isinstance(listing, Listing) and all(isinstance(f, str) for f in listing.files)


@given(_bodies(JSON | st.fixed_dictionaries({"metadata": st.fixed_dictionaries(
    {"total_size": JSON})})))
def test_any_index_is_a_whole_number_of_bytes_or_a_reason(body: bytes) -> None:
    try:
        total = parse_index(body)
    except HubError as exc:
        assert exc.said.code.code in ("hub_why.not_json", "hub_why.bad_total")
        return
    assert type(total) is int and total >= 0


@given(_bodies(JSON | st.lists(st.fixed_dictionaries(
    {"path": st.sampled_from(["a.safetensors", "b.safetensors"]), "size": JSON,
     "lfs": JSON}), max_size=3)))
def test_any_sizes_answer_is_a_sum_or_a_reason(body: bytes) -> None:
    try:
        total = parse_sizes(body, ["a.safetensors", "b.safetensors"])
    except HubError as exc:
        assert exc.said.code.code in ("hub_why.not_json", "hub_why.bad_size")
        assert "\x1b" not in str(exc.said)
        return
    assert type(total) is int and total >= 0


def test_sizes_take_the_lfs_size_and_refuse_a_lie() -> None:
    body = json.dumps([{"path": "a.safetensors", "size": 134, "lfs": {"size": 10}},
                       {"path": "b.safetensors", "size": 5}]).encode()
    assert parse_sizes(body, ["a.safetensors", "b.safetensors"]) == 15
    for lie in (-1, "5", True, 2.5, None):
        body = json.dumps([{"path": "a.safetensors", "size": lie}]).encode()
        with pytest.raises(HubError, match="bad_size"):
            parse_sizes(body, ["a.safetensors"])
    with pytest.raises(HubError) as missing:
        parse_sizes(b"[]", ["a.safetensors"])
    assert "(-)" in str(missing.value.said)


def test_the_weights_are_the_safetensors_right_in_the_models_folder() -> None:
    files = frozenset({"model.safetensors", "sub/x.safetensors", "sub/deep/y.safetensors",
                       "consolidated.pth", "sub/config.json"})
    assert in_folder(files, "") == ["model.safetensors"]
    assert in_folder(files, "sub") == ["sub/x.safetensors"]
