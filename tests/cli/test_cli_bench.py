"""sparktui bench's refusals that need no cluster: a clear message, exit 2, no
traceback, nothing run; --list and --compare on runs kept in a temp data folder."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from bench_support import a_run


def bench(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sparktui", "bench", *args],
                          capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture
def env(tmp_path, monkeypatch):
    import os
    return {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"),
            "SPARKTUI_AIPERF": sys.executable, "SPARKTUI_CONFIG": ""}


@pytest.mark.parametrize("levels", ["0", "1,x", "", "1;4", "99999"])
def test_bad_concurrency_is_a_clear_refusal(env, levels):
    done = bench("--concurrency", levels, env=env)
    assert done.returncode == 2, done
    assert "is not a list of concurrency levels" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_missing_tool_says_how_to_install_it(env):
    done = bench(env={**env, "SPARKTUI_AIPERF": "/nonexistent/aiperf"})
    assert done.returncode == 2, done
    assert "pipx install aiperf" in done.stderr and "/nonexistent/aiperf" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("requests", ["0", "²"])  # '²'.isdigit(), yet no int
def test_bad_numbers_are_refused_by_the_parser(env, requests):
    done = bench("--requests", requests, env=env)
    assert done.returncode == 2 and "whole number above 0" in done.stderr
    assert "Traceback" not in done.stderr


def test_list_and_compare_of_kept_runs(env, tmp_path):
    folder = tmp_path / "data" / "sparktui" / "bench"
    folder.mkdir(parents=True)
    for run in (a_run("64"), a_run("128", 1.4, "20261201-130000-toy")):
        (folder / f"{run.id}.json").write_text(json.dumps(run.model_dump()))
    (folder / "broken.json").write_text("{not json")
    done = bench("--list", env=env)
    assert done.returncode == 0, done
    assert "20261201-120000-toy" in done.stdout and "20261201-130000-toy" in done.stdout
    assert "broken.json" in done.stderr and "Traceback" not in done.stderr
    done = bench("--compare", "20261201-12", "20261201-13", env=env)
    assert done.returncode == 0, done
    assert "plan.node1.launch" in done.stdout
    done = bench("--compare", "20261201-12", "nope", env=env)
    assert done.returncode == 2 and "no benchmark run 'nope'" in done.stderr, done
