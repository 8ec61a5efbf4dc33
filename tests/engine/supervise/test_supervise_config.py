"""supervise's settings: defaults that suit a real cluster, and every value checked."""

from __future__ import annotations

import pytest

from sparktui.config.loader import load_config
from sparktui.engine.supervise.policy import Policy
from sparktui.errors import SparkError

CLUSTER = '\n[[clusters]]\nname = "c"\nnodes = [{ name = "n1", ssh_ip = "10.0.0.1", rank = 0 }]\n'


def _load(tmp_path, top: str = ""):
    path = tmp_path / "config.toml"
    path.write_text(top + CLUSTER)
    return load_config(path).config


def test_defaults(tmp_path):
    config = _load(tmp_path)
    policy = Policy.from_config(config)
    assert (policy.interval, policy.failure_checks, policy.max_restarts, policy.window) == (
        10.0, 2, 3, 1800.0)
    assert (policy.backoff, policy.backoff_max, policy.lease) == (10.0, 300.0, 60.0)
    assert policy.stall == config.telemetry_stall_seconds == 300.0
    assert Policy.from_config(config, 2.5).interval == 2.5
    assert config.supervise_image == "sparktui-supervisor:latest"
    assert config.supervise_key_path == "~/.ssh/id_ed25519"


@pytest.mark.parametrize("line, field", [
    ("supervise_interval_seconds = 0", "supervise_interval_seconds"),
    ("supervise_interval_seconds = inf", "supervise_interval_seconds"),
    ("supervise_failure_checks = 0", "supervise_failure_checks"),
    ("supervise_max_restarts = 0", "supervise_max_restarts"),
    ("supervise_window_seconds = -1", "supervise_window_seconds"),
    ("supervise_backoff_seconds = -1", "supervise_backoff_seconds"),
    ("supervise_lease_seconds = 0.5", "supervise_lease_seconds"),
    ('supervise_image = "--privileged"', "supervise_image"),
    ('supervise_key_path = "relative/key"', "supervise_key_path"),
    ('supervise_key_path = "/a:/b"', "supervise_key_path"),
])
def test_a_bad_value_is_one_located_problem(tmp_path, line, field):
    with pytest.raises(SparkError) as caught:
        _load(tmp_path, line + "\n")
    text = caught.value.render()
    assert field in text and "config.toml:1" in text
