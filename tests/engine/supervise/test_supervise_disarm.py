"""A supervisor that sees an operator's mark at once is still counted as ended by it.

Found in CI: ``supervise --end`` wrote the mark, the supervisor read it within its
one-second interval and released its lease, and only then did the end read the head:
no lease, so "nothing supervised", while it had just ended one. The head is now read
before the mark goes out. The supervisor here is a stand-in for that timing only (a
real one's interval cannot be held to land between two commands on a loaded machine):
the lease is released by the real shell line, right after the mark is appended.
"""

from __future__ import annotations

import asyncio

from engine.workloads.test_logs_local import LOCAL_CONFIG

from sparktui.config.loader import load_config
from sparktui.engine.remote.local import LocalTransport
from sparktui.engine.remote.transport import Completed
from sparktui.engine.supervise import shell
from sparktui.engine.supervise.disarm import disarm
from sparktui.engine.supervise.record import Lease
from sparktui.engine.supervise.remote import new_mark, read_status

LEASE = Lease("feedc0de", 30, "ops@laptop pid 1", "here", "toy", started=1.0)


class _QuickSupervisor(LocalTransport):
    """A head whose supervisor releases its lease the moment a mark lands."""

    async def run(self, command: str, *, stdin: str | None = None,
                  timeout: float | None = None) -> Completed:
        done = await super().run(command, stdin=stdin, timeout=timeout)
        if command == shell.append_mark():
            await super().run(shell.release(LEASE.token))
        return done


def test_a_supervisor_that_releases_at_the_mark_is_counted_as_ended(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    config = tmp_path / "config.toml"
    config.write_text(LOCAL_CONFIG)
    loaded = load_config(config).config
    head = _QuickSupervisor(loaded.clusters[0].nodes[0], loaded)

    async def scenario():
        taken = await head.run(shell.acquire(LEASE.token, LEASE.ttl), stdin=LEASE.text())
        assert taken.stdout == "taken\n", taken
        assert (await read_status(head, 10)).lease == LEASE
        ended = await disarm([head], [head], new_mark("end", "here"), None, timeout=10,
                             read_timeout=10)
        return ended, await read_status(head, 10)

    ended, after = asyncio.run(scenario())
    assert ended.ended == [LEASE] and ended.running == [] and ended.unread == []
    assert after.lease is None
    assert '"action":"end"' in (tmp_path / ".local/state/sparktui/supervise/marks.jsonl"
                                 ).read_text()
