"""JSON a node sends cannot crash its reader, however deep it nests."""

import pytest

from sparktui import untrusted_json
from sparktui.plan.runtime.docker import Docker, api_ids

DEEP = "[" * 100_000 + "]" * 100_000


def test_deep_nesting_is_a_value_error_not_a_recursion_error():
    with pytest.raises(ValueError, match="nested too deep"):
        untrusted_json.loads(DEEP)
    assert untrusted_json.loads('{"a": [1]}') == {"a": [1]}


def test_a_docker_listing_nested_without_end_is_an_error_of_that_node():
    listing = Docker().parse_list(DEEP)
    assert listing.found == [] and str(listing.error) == "docker's listing is not JSON"
    with pytest.raises(ValueError):
        api_ids(DEEP)
