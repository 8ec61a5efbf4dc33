"""``{index}``, ``{node_ip}``, ``{pool_ips}``...: per-instance values in command, args, env.

Only these names are replaced; any other brace (a shell ``${X}``, JSON, an HF
``{{ref}}``) is left exactly as written.
"""

from __future__ import annotations

import re

from sparktui.config.models import Node

NAMES = ("index", "node", "node_ip", "head_ip", "pool_ip", "pool_ips", "pool_nodes",
         "pool_node_count", "gpus_per_node")
_PATTERN = re.compile(r"(?<!\{)\{(" + "|".join(NAMES) + r")\}(?!\})")


def values(*, index: int, node: Node, head: Node, pool: list[Node],
           gpus_per_node: int) -> dict[str, str]:
    """``pool``: the instance's pool, or the nodes of its service when it has none."""
    return {
        "index": str(index),
        "node": node.name,
        "node_ip": node.fabric_ip,
        "head_ip": head.fabric_ip,
        "pool_ip": pool[0].fabric_ip,
        "pool_ips": ",".join(n.fabric_ip for n in pool),
        "pool_nodes": ",".join(n.name for n in pool),
        "pool_node_count": str(len(pool)),
        "gpus_per_node": str(gpus_per_node),
    }


def substitute(text: str, vals: dict[str, str]) -> str:
    return _PATTERN.sub(lambda m: vals[m.group(1)], text)
