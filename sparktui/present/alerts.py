"""An alert in words: the dashboard's alerts strip and ``top``'s last lines."""

from __future__ import annotations

from sparktui.engine.api import KV_SHARE, MEMORY_PCT, Alert
from sparktui.i18n import _


def describe(alert: Alert) -> str:
    """One line for people, in the active language."""
    node = alert.node or "-"
    v = alert.value
    if alert.kind == "memory":
        return _("{node}: memory {pct:.0f}% used (above {limit:.0f}%)").format(
            node=node, pct=v or 0, limit=MEMORY_PCT)
    if alert.kind == "swap":
        return _("{node}: swap grew {mib:.0f} MiB in the last minute").format(
            node=node, mib=(v or 0) / 1024 / 1024)
    if alert.kind in ("kv", "stalled") and alert.detail:
        node = f"{node} {alert.detail}"  # the recipe whose engine it is
    if alert.kind == "kv":
        return _("{node}: KV cache {pct:.0f}% full (above {limit:.0f}%)").format(
            node=node, pct=(v or 0) * 100, limit=KV_SHARE * 100)
    if alert.kind == "worker_gone":
        return _("{node}: worker container gone while the head is up ({detail})").format(
            node=node, detail=alert.detail)
    if alert.kind == "stalled":
        return _("{node}: no tokens for {minutes:.0f} min while requests wait").format(
            node=node, minutes=(v or 0) / 60)
    if alert.kind == "kernel_oom":
        return _("{node}: kernel: {line}").format(node=node, line=alert.detail)
    return f"{node}: {alert.kind}"
