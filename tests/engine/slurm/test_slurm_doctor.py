"""``doctor`` on a Slurm cluster, on the test bed's real Slurm: the submit host reaches
it, each node is in the partition in a state that takes jobs; a drained node is a
warning naming its state, a node the partition lacks a failure, and a partition Slurm
does not have is said, never "no node"."""

from __future__ import annotations

import json

import pytest

from sparktui.cli import main
from sparktui.engine.slurm.doctor import _takes_jobs
from sparktui.engine.slurm.jobs import parse_sinfo

pytestmark = pytest.mark.hosts


def _slurm_checks(s, capsys) -> dict[str, dict]:
    capsys.readouterr()
    main(s.cli("doctor", "--json"))
    found = json.loads(capsys.readouterr().out)
    checks = found["checks"] if isinstance(found, dict) else found
    return {c["node"]: c for c in checks if c["name"] == "slurm"}


def test_doctor_checks_the_partition_and_each_nodes_state(site, capsys):
    s = site(2, extra_toml='[clusters.slurm]\npartition = "spark"\nsubmit_host = "node1"\n')
    bed = s.hosts.start_slurm(partition="spark")
    checks = _slurm_checks(s, capsys)
    assert {n: c["status"] for n, c in checks.items()} == {"node1": "pass", "node2": "pass"}
    assert checks["node2"]["detail"]["params"]["state"] == "idle", checks
    drained = bed.run("scontrol", "update", "nodename=node2", "state=drain", "reason=maint")
    assert drained.returncode == 0, drained.stderr
    checks = _slurm_checks(s, capsys)
    assert checks["node2"]["status"] == "warn" and checks["node1"]["status"] == "pass"
    assert checks["node2"]["detail"]["params"]["state"].startswith("drain"), checks


def test_a_partition_slurm_lacks_is_a_failure_naming_it(site, capsys):
    s = site(2, extra_toml='[clusters.slurm]\npartition = "gpu"\nsubmit_host = "node1"\n')
    s.hosts.start_slurm(partition="spark")
    checks = _slurm_checks(s, capsys)
    assert [c["status"] for c in checks.values()] == ["fail"], checks
    assert "gpu" in json.dumps(checks), checks


def test_sinfo_lines_are_read_as_untrusted_text():
    text = "node1 idle\nnode2 drained*\nnode3 idle~\nbad line here\nnode4 $(id)\n" + \
        "x" * 100 + " idle\n"
    assert parse_sinfo(text) == {"node1": "idle", "node2": "drained*", "node3": "idle~"}
    assert _takes_jobs("idle") and _takes_jobs("mixed") and _takes_jobs("idle~")
    assert not _takes_jobs("idle*") and not _takes_jobs("drained") and not _takes_jobs("down*")
