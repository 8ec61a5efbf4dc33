"""What Slurm says, read as untrusted text: squeue's lines (another operator's job may
be named anything), host lists expanded within bounds and never by a shell, sbatch's job
id; and which jobs a stop may touch (only its own user's serves). The line shapes are
Slurm 22.05's (``squeue --noheader --format`` with the fields of ``jobs.FIELDS``)."""

from __future__ import annotations

import pytest

from sparktui.engine.slurm.jobs import (
    FIELDS,
    MAX_NODES,
    SEP,
    Job,
    SlurmStatus,
    at_time_limit,
    expand_nodes,
    job_name,
    parse_job_id,
    parse_jobs,
    seconds_left,
)
from sparktui.engine.slurm.stop import ours


def _line(*, id: str = "41", state: str = "RUNNING", reason: str = "None",
          time_left: str = "1:00:00", user: str = "ops", nodes: str = "",
          limit: str = "1:00:00", used: str = "5:00", name: str = "j") -> str:
    """A line of ``squeue --format=FORMAT``: each field named as ``Job`` names it, put in
    ``FIELDS``' order by its ``%`` code (a code added to ``FIELDS`` fails here, not as a
    line that quietly does not read)."""
    by_code = {"%i": id, "%T": state, "%r": reason, "%L": time_left, "%u": user,
               "%N": nodes, "%l": limit, "%M": used, "%j": name}
    assert sorted(by_code) == sorted(FIELDS)
    return SEP.join(by_code[code] for code in FIELDS)


def test_squeue_lines_read_as_jobs_and_a_name_is_kept_whole_but_cut():
    text = "\n".join([
        _line(id="41", state="PENDING", reason="Resources", time_left="1:00:00", user="ops",
              name="sparktui-toy"),
        _line(id="42", time_left="58:12", user="alice", nodes="spark[01-02]",
              name=f"x{SEP}y [red]z"),
        _line(id="43_7", time_left="UNLIMITED", user="bob", nodes="spark03", name="n" * 500),
    ])
    jobs = parse_jobs(text)
    assert jobs[0] == Job("41", "PENDING", "Resources", "1:00:00", "ops", (), "sparktui-toy",
                          "1:00:00", "5:00")
    assert jobs[0].pending and not jobs[0].running
    assert jobs[1].nodes == ("spark01", "spark02") and jobs[1].name == f"x{SEP}y [red]z"
    assert jobs[2].id == "43_7" and len(jobs[2].name) == 120


@pytest.mark.parametrize("line", [
    "", "garbage", SEP.join(["41", "PENDING"]),                     # too few fields
    _line(id="4x", nodes="n1"),                                     # not a job id
    _line(state="running; rm", nodes="n1"),                         # not a state
])
def test_a_line_that_does_not_read_is_no_job(line):
    assert parse_jobs(line) == []


def test_short_fields_keep_printable_ascii_only():
    job = parse_jobs(_line(state="PENDING", reason="Res\x1b[31mources", user="u\u202e"))[0]
    assert job.reason == "Res[31mources" and job.user == "u"


@pytest.mark.parametrize(("text", "names"), [
    ("spark1", ["spark1"]),
    ("spark[1-3,7]", ["spark1", "spark2", "spark3", "spark7"]),
    ("gpu[08-10],login", ["gpu08", "gpu09", "gpu10", "login"]),
    ("a[1-2]-ib", ["a1-ib", "a2-ib"]),
])
def test_host_lists_expand_as_slurm_writes_them(text, names):
    assert expand_nodes(text) == names


@pytest.mark.parametrize("text", [
    "", "a[1", "a]1", "a[[1]]", "a[3-1]", "a[x]", f"a[1-{MAX_NODES + 1}]",
    "a;rm -rf /", "$(id)[1-2]", "a[1-2],", ",a",
])
def test_a_host_list_that_does_not_read_or_expands_too_far_is_none(text):
    assert expand_nodes(text) is None


@pytest.mark.parametrize(("answer", "job"), [
    ("1234\n", "1234"), ("1234;cluster2\n", "1234"), ("", None),
    ("sbatch: error: x", None), ("12 34", None),
])
def test_sbatch_parsable_answer(answer, job):
    assert parse_job_id(answer) == job


def test_a_stop_touches_only_its_own_users_serves():
    jobs = [Job("1", "RUNNING", user="ops", name=job_name("toy")),
            Job("2", "RUNNING", user="alice", name=job_name("toy")),  # a colleague's
            Job("3", "PENDING", user="ops", name=job_name("big")),
            Job("4", "RUNNING", user="ops", name="training")]          # not a serve
    assert [j.id for j in ours(jobs, "ops", ["toy"])] == ["1"]
    assert [j.id for j in ours(jobs, "ops", None)] == ["1", "3"]
    assert ours(jobs, "bob", None) == []


@pytest.mark.parametrize(("text", "seconds"), [
    ("0:59", 59), ("1:02:03", 3723), ("2-00:00:01", 172801), ("12:00", 720),
    ("UNLIMITED", None), ("INVALID", None), ("", None), ("1:2:3:4", None), ("-1:00", None),
])
def test_time_left_reads_as_slurm_writes_it(text, seconds):
    assert seconds_left(text) == seconds


def test_a_group_is_at_its_time_limit_only_when_its_newest_job_says_so():
    def job(job_id: str, state: str, left: str = "", user: str = "ops", recipe="toy") -> Job:
        return Job(job_id, state, time_left=left, user=user, name=job_name(recipe))

    assert at_time_limit([job("7", "TIMEOUT")], "ops", "toy", 180).id == "7"
    assert at_time_limit([job("8", "RUNNING", "2:10")], "ops", "toy", 180).id == "8"
    assert at_time_limit([job("8", "RUNNING", "3:10")], "ops", "toy", 180) is None  # a crash
    assert at_time_limit([job("8", "RUNNING", "UNLIMITED")], "ops", "toy", 180) is None
    # an old job's time-out is not the running one's: the newest job counts
    assert at_time_limit([job("7", "TIMEOUT"), job("12", "RUNNING", "1-00:00:00")],
                         "ops", "toy", 180) is None
    assert at_time_limit([job("7", "TIMEOUT", user="alice")], "ops", "toy", 180) is None
    assert at_time_limit([job("7", "TIMEOUT", recipe="big")], "ops", "toy", 180) is None
    # the early TERM's cleanup ended the script: it ran to within the window of its limit
    ended = Job("9", "COMPLETED", user="ops", name=job_name("toy"), limit="1:00", used="0:31")
    assert at_time_limit([ended], "ops", "toy", 180).id == "9"
    crashed = Job("9", "FAILED", user="ops", name=job_name("toy"), limit="1-00:00:00",
                  used="2:00:00")  # its head's container ended long before the limit
    assert at_time_limit([crashed], "ops", "toy", 180) is None


def test_a_pending_or_starting_serve_job_is_never_nothing_running():
    """A stop's "nothing runs" (no confirmation, nothing done) must not miss a serve whose
    job is pending or starting its steps: no container shows it yet."""
    from sparktui.engine.status import ClusterHealth, NodeHealth
    from sparktui.engine.workloads.restart import nothing_runs

    def health(*jobs: Job, error: str | None = None) -> ClusterHealth:
        return ClusterHealth("c", [NodeHealth("n1", True)], 0.0,
                             slurm=SlurmStatus("spark", "ops", list(jobs), error))

    pending = Job("5", "PENDING", "Resources", user="ops", name=job_name("toy"))
    assert nothing_runs(health(), None) and nothing_runs(health(), "toy")
    assert not nothing_runs(health(pending), None) and not nothing_runs(health(pending), "toy")
    assert nothing_runs(health(pending), "big")  # another recipe's job
    theirs = Job("6", "RUNNING", user="alice", name=job_name("toy"), nodes=("n1",))
    assert nothing_runs(health(theirs), None)  # a colleague's: not ours to stop
    ended = Job("7", "COMPLETING", user="ops", name=job_name("toy"))
    assert nothing_runs(health(ended), "toy")
    assert not nothing_runs(health(error="squeue: Connection refused"), None)  # unknown


def test_a_secret_with_a_line_break_is_never_handed_to_sbatch(tmp_path):
    """The secrets go to the submit host a line each before the script: one with a line
    break would spill into the script. Refused before any command runs, naming the
    variable and never its value."""
    import asyncio

    from engine.workloads.test_logs_local import LOCAL_CONFIG

    from sparktui.config.loader import load_config
    from sparktui.engine.remote.local import LocalTransport
    from sparktui.engine.slurm.site import SlurmError, SlurmSite
    from sparktui.plan.model import SlurmPlan

    config = tmp_path / "config.toml"
    config.write_text(LOCAL_CONFIG)
    loaded = load_config(config).config
    ran = tmp_path / "ran"

    class Watched(LocalTransport):
        async def run(self, command, **kw):
            ran.write_text(command)
            return await super().run(command, **kw)

    site = SlurmSite(Watched(loaded.clusters[0].nodes[0], loaded), SlurmPlan("spark"))
    with pytest.raises(SlurmError) as caught:
        asyncio.run(site.submit("#!/bin/bash\ntrue\n", {"HF_TOKEN": "hf_abc\nrm -rf ~"}))
    assert "HF_TOKEN holds a line break" in str(caught.value)
    assert "hf_abc" not in str(caught.value) and not ran.exists()
