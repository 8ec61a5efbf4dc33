"""Whether one node reaches another over the fabric with SSH, as a pull's copies need:
checked before a pull moves anything, and by ``doctor`` for every pair of a cluster.

Why a check of its own: a copy that fails on the first byte for want of a host key would
leave some nodes with the image and others without; asked first with ``true``, a pair
that does not trust each other is a refusal naming both, and nothing has moved.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from sparktui.config.models import Config, Node
from sparktui.engine.doctor_check import FAIL, PASS, Check
from sparktui.engine.pull.fabric import CONNECT_SECONDS, node_to_node_argv
from sparktui.engine.remote.transport import NodeError, Transport, argv_command
from sparktui.i18n import N_
from sparktui.plan.pull.image import PullSaid
from sparktui.said import Code, Said, said

CHECK = "trust"
"""doctor's name of the check (``trust node2``: the node named reaches node2)."""


class TrustSaid(Code):
    REACHES = N_("reaches {target} over the fabric with ssh")
    UNREACHED = N_("cannot reach {target} over the fabric with ssh: {why}")
    SET_UP = N_("give {source} a key that {target} accepts and {target}'s host key in "
                "{source}'s known_hosts (`sparktui pull --help` says how)")


async def unreached(config: Config, source: Transport, target: Node) -> str | None:
    """None when ``source``'s node runs ``true`` on ``target`` over the fabric, else why
    not (ssh's last line, or why the source itself did not answer)."""
    argv = node_to_node_argv(config, target, ["true"])
    try:
        done = await source.run(argv_command(argv), timeout=CONNECT_SECONDS + 20)
    except NodeError as exc:
        return exc.text
    if done.ok:
        return None
    lines = [line.strip() for line in (done.stderr or done.stdout).splitlines() if line.strip()]
    return (lines[-1] if lines else f"exit status {done.exit_code}")[:200]


async def untrusted_pairs(config: Config, nodes: Mapping[str, Node],
                          transports: Mapping[str, Transport],
                          pairs: Sequence[tuple[str, str]]) -> list[Said]:
    """A refusal for each (source, target) pair whose source cannot reach its target."""
    found = await asyncio.gather(*(unreached(config, transports[s], nodes[t])
                                   for s, t in pairs))
    return [said(PullSaid.UNTRUSTED, source=s, target=t, why=why)
            for (s, t), why in zip(pairs, found, strict=True) if why is not None]


async def trust_checks(config: Config, nodes: Sequence[Node],
                       transports: Mapping[str, Transport]) -> list[Check]:
    """doctor's check of every ordered pair of a cluster of two nodes or more."""
    if len(nodes) < 2:
        return []
    pairs = [(s, t) for s in nodes for t in nodes if s.name != t.name]
    found = await asyncio.gather(*(unreached(config, transports[s.name], t) for s, t in pairs))
    return [Check(s.name, f"{CHECK} {t.name}", PASS, said(TrustSaid.REACHES, target=t.name))
            if why is None else
            Check(s.name, f"{CHECK} {t.name}", FAIL,
                  said(TrustSaid.UNREACHED, target=t.name, why=why),
                  said(TrustSaid.SET_UP, source=s.name, target=t.name))
            for (s, t), why in zip(pairs, found, strict=True)]
