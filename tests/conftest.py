"""Shared pytest setup: registers the real-SSH test host fixtures (tests/hosts) and the
sparktui site built on them (site_support.py), and marks every test that uses them
``hosts`` (``python -m pytest -m "not hosts"`` runs the others)."""

import gc
from pathlib import Path

import home_support

home_support.isolate()  # before anything of sparktui or the test hosts reads a home

import pytest  # noqa: E402
from hosts.fixtures import (  # noqa: E402
    HOST_FIXTURES,
    fresh_cluster,
    host_pool,
    shared_cluster,
    test_cluster,
)
from real_vllm_support import real_vllm  # noqa: E402
from site_support import fresh_site, site  # noqa: E402

from sparktui import i18n  # noqa: E402

DASHBOARD_TESTS = Path(__file__).resolve().parent / "tui"

__all__ = ["fresh_cluster", "fresh_site", "host_pool", "real_vllm", "shared_cluster", "site",
           "test_cluster"]


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks the tests on the simulated cluster ``hosts`` and hands them out first,
    then the other dashboard tests, then the rest. The longest go first (a serve, a
    grace period, a benchmark: up to a minute each; a dashboard driven key by key: up
    to 20 s), so the many short ones fill the workers' last seconds. In collection
    order tests/tui came last, and a worker ran on alone for a minute while the others
    had finished. The tests of the one real vLLM (real_vllm_support.py) go before all:
    its start is the longest, and the other workers run the rest meanwhile."""
    def rank(item: pytest.Item) -> int:
        names = set(getattr(item, "fixturenames", ()))
        if "real_vllm" in names:
            item.add_marker(pytest.mark.hosts)
            return -1
        if HOST_FIXTURES & names:
            item.add_marker(pytest.mark.hosts)
            return 0
        return 1 if item.path.is_relative_to(DASHBOARD_TESTS) else 2

    ranks = {item: rank(item) for item in items}
    items.sort(key=ranks.__getitem__)  # stable: in collection order within each rank


@pytest.fixture(autouse=True)
def _language_kept():
    """The language a test found is the one it leaves: ``main(["--lang", "ru", ...])``
    switches the whole process (as does a dashboard started in Russian), and a later
    test of the same worker (a view rendered without ``main``: tests/cli/test_pull_view.py)
    read Russian where it asserts English, depending on which worker the scheduler gave
    it (CI of 46c9eb8)."""
    before = i18n.active_language()
    yield
    if i18n.active_language() != before:
        i18n.install(before)


def pytest_configure(config: pytest.Config) -> None:
    # Workers each see a part of a module's snapshots: updates are made in one process.
    if config.getoption("--snapshot-update", False) and getattr(config.option,
                                                                 "numprocesses", None):
        raise pytest.UsageError("--snapshot-update runs in one process: add -n 0")


def pytest_collection_finish(session: pytest.Session) -> None:
    """Fewer, cheaper garbage collections in each test process. After collection the
    heap holds every imported module (Textual, Rich, asyncssh, pydantic, ...): frozen,
    a collection no longer walks it. A young generation of 50,000 allocations instead of
    700 stops the TUI tests' many short-lived Strips and caches from triggering a
    collection every few frames. Cycles are still collected, only less often. (A py-spy
    profile of tests/tui showed allocation sites under collection among the hottest
    frames; the snapshot tests took about a fifth less CPU with this.)"""
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The session fails when anything in the real home's sparktui folders changed while
    it ran (tests/home_support.py): a test wrote into the home of whoever runs them."""
    if hasattr(session.config, "workerinput"):
        return  # each worker's tests are the controller's to judge, once, at the end
    changed = home_support.changed()
    if changed:
        session.config.get_terminal_writer().line(
            "the tests changed the real home's sparktui state: " + ", ".join(changed[:20]),
            red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_unconfigure(config: pytest.Config) -> None:
    """One full collection, then the heap frozen, before pytest's own clean-up collects
    five times over it to report unraisable exceptions. The first collection finds the
    garbage (its finalizers' exceptions still reach pytest's hook and are reported); the
    other four walked the whole heap of a test process again, which after a few hundred
    dashboards is large: seconds of CPU per worker, all of it at the end of the run."""
    home_support.clean_up()
    gc.collect()
    gc.freeze()
