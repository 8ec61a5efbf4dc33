"""What the container tests share (tests/engine/workloads/test_container_cmds.py,
tests/tui/test_dashboard_k9s.py): secrets in a recipe's env, the check that none shows in
any form, and a bounded read of a pty."""

from __future__ import annotations

import json
import os
import select
import time

from sparktui.scrub import forms

SECRET = 'hf_Zq"9\\é-very-secret'
PASSWORD = "pw-second-secret"
ENV = (f'HF_TOKEN = {json.dumps(SECRET)}\nDB_PASSWORD = "{PASSWORD}"\n'
       'SHOWN_VALUE = "plain-value-42"')


def no_secret(text: str) -> None:
    for secret in (SECRET, PASSWORD):
        for form in forms(secret):
            assert form not in text, form


def read_until(fd: int, needle: bytes, seconds: float = 60.0) -> bytes:
    """Read the pty until ``needle`` shows (a bound on a hang, not a speed goal)."""
    seen, deadline = b"", time.monotonic() + seconds
    while needle not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"{needle!r} never came; got {seen[-500:]!r}"
        ready, _w, _x = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the other side closed
                break
            if not chunk:
                break
            seen += chunk
    assert needle in seen, seen[-500:]
    return seen
