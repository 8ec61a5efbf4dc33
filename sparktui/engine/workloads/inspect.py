"""A container's ``docker inspect``, read from its node, with its secrets masked.

Secrets are masked by sparktui's one rule (``sparktui.scrub``): every value whose field
says it is a secret (an env entry ``HF_TOKEN=…``, ``--api-key X`` in the command, a URL's
password, a key named like one), whatever its length, then each such value and the
registered secrets (the Home Assistant token) in every form wherever else a string
holds them (a command line, a label, a ``sh -c`` script): what leaves here is safe to
print (``sparktui inspect``, the dashboard's ``i``).
"""

from __future__ import annotations

import json
from typing import Any

from sparktui import untrusted_json
from sparktui.engine.remote.transport import NodeError, Reason, Transport
from sparktui.engine.workloads.described import Described
from sparktui.plan.runtime.docker import inspect_command
from sparktui.scrub import mask_data
from sparktui.visible import visible


def mask(item: dict[str, Any]) -> dict[str, Any]:
    """``item`` with its secrets replaced by stars wherever they show: masked on its
    values (``sparktui.scrub.mask_data``), never on its JSON text, so a secret that is a
    JSON word (``null``, ``true``) or holds a quote cannot break it."""
    masked: dict[str, Any] = mask_data(item)
    return masked


async def inspect(transport: Transport, name: str, timeout: float) -> Described:
    """The container's ``docker inspect`` on its node; NodeError when it cannot say."""
    done = await transport.run(inspect_command(name), timeout=timeout)
    node = transport.node.name
    if not done.ok:
        raise NodeError(node, Reason.DOCKER_INSPECT_FAILED,
                        f"{name}: {visible((done.stderr or done.stdout).strip()[:300])}")
    try:
        items = untrusted_json.loads(done.stdout)
        item = items[0] if isinstance(items, list) and items else None
    except json.JSONDecodeError:
        item = None
    if not isinstance(item, dict):
        raise NodeError(node, Reason.INSPECT_NO_CONTAINER, name)
    return Described(node, name, mask(item))
