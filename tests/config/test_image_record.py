"""serve's memory of the digest a recipe's tag resolved to: one JSON file per cluster in
the state folder, written whole; a broken or hostile file is no memory, never an error."""

from __future__ import annotations

import json
import stat

import pytest

from sparktui.config import image_record

A = "sha256:" + "a" * 64
B = "sha256:" + "b" * 64


@pytest.fixture(autouse=True)
def _state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def test_the_last_digest_is_per_recipe_and_image():
    assert image_record.last_digest("c1", "toy", "img:latest") is None
    path = image_record.remember("c1", "toy", "img:latest", A)
    image_record.remember("c1", "other", "img:latest", B)
    assert path.name == "c1.json" and path.parent.name == "images"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert image_record.last_digest("c1", "toy", "img:latest") == A
    assert image_record.last_digest("c1", "other", "img:latest") == B
    assert image_record.last_digest("c1", "toy", "img:v2") is None  # another image
    assert image_record.last_digest("c2", "toy", "img:latest") is None  # another cluster
    image_record.remember("c1", "toy", "img:latest", B)
    assert image_record.last_digest("c1", "toy", "img:latest") == B
    assert [p.name for p in path.parent.iterdir()] == ["c1.json"]  # no temp file left


@pytest.mark.parametrize("text", ["not json", "[]", '{"recipes": 3}',
                                  json.dumps({"recipes": {"toy": {"image": "img:latest",
                                                                  "digest": "sha256:x"}}})])
def test_a_broken_or_hostile_record_is_no_memory(text):
    path = image_record.record_path("c1")
    path.parent.mkdir(parents=True)
    path.write_text(text)
    assert image_record.last_digest("c1", "toy", "img:latest") is None
    image_record.remember("c1", "toy", "img:latest", A)  # and is written again
    assert image_record.last_digest("c1", "toy", "img:latest") == A
