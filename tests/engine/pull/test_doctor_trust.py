"""doctor checks that each node reaches every other over the fabric with SSH (what a
pull's copies need), on real sshd test nodes: before the operator's one-time set-up each
pair fails, named, with the set-up as the hint; after it (``trust_nodes``) each passes. A
cluster of one node has no such check."""

from __future__ import annotations

import json

import pytest

from sparktui.cli import main

pytestmark = pytest.mark.hosts


def _trust(checks: list[dict]) -> dict[tuple[str, str], dict]:
    return {(c["node"], c["name"]): c for c in checks if c["name"].startswith("trust ")}


def test_doctor_names_each_pair_that_does_not_trust_each_other(site, capsys):
    s = site(2)
    assert main(s.cli("doctor", "--json")) == 1
    trust = _trust(json.loads(capsys.readouterr().out))
    assert set(trust) == {("node1", "trust node2"), ("node2", "trust node1")}
    check = trust[("node1", "trust node2")]
    assert check["status"] == "fail"
    assert check["detail"]["code"] == "trust_said.unreached"
    assert "Host key verification failed" in check["detail"]["params"]["why"], check
    assert check["hint"]["code"] == "trust_said.set_up"
    assert check["hint"]["params"] == {"source": "node1", "target": "node2"}
    main(s.cli("doctor"))
    text = capsys.readouterr().out
    assert "sparktui pull --help" in text and "trust node2" in text, text


def test_doctor_passes_trusting_nodes(site, capsys):
    s = site(2)
    s.hosts.trust_nodes()
    main(s.cli("doctor", "--json"))
    trust = _trust(json.loads(capsys.readouterr().out))
    assert len(trust) == 2 and all(c["status"] == "pass" for c in trust.values()), trust


def test_a_single_node_has_no_trust_check(site, capsys):
    s = site(1)
    main(s.cli("doctor", "--json"))
    assert _trust(json.loads(capsys.readouterr().out)) == {}
