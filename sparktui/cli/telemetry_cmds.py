"""``top`` and the telemetry parts of ``health``: live figures for scripts and terminals.

``top --json`` prints one NDJSON line per sample (``TelemetryFrame.as_dict()``);
without ``--json`` a compact view is redrawn in place on a terminal.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time

from sparktui.cli.context import config_from, with_engine
from sparktui.engine.api import (
    TELEMETRY_HEALTH_AGE,
    ClusterControl,
    DeepCheck,
    TelemetryFrame,
)
from sparktui.errors import EXIT_OK
from sparktui.fmt import format_time
from sparktui.i18n import _
from sparktui.plan.cluster import pick_cluster
from sparktui.present.alerts import describe
from sparktui.visible import write_control

HEALTH_SAMPLE_GAP = 1.0  # seconds between the two samples health --json takes (rates)


async def health_telemetry(engine: ClusterControl, cluster: str, deep: bool,
                           interval: float) -> tuple[TelemetryFrame, DeepCheck | None]:
    """Two samples (CPU and rates need a delta), at most ``interval`` (the config's
    telemetry interval) apart, and, on request, the deep check."""
    gap = min(HEALTH_SAMPLE_GAP, interval)
    await engine.telemetry(cluster)
    await asyncio.sleep(gap)
    frame = await engine.telemetry(cluster)
    return frame, await engine.deep_check(cluster) if deep else None


def print_deep(deep: DeepCheck | None) -> None:
    if deep is None:
        print("  " + _("deep check: nothing serves"))
    elif deep.unknown:  # a node did not say: never "nothing serves"
        print("  " + _("deep check: {state}").format(state=deep.error))
    elif deep.ok:
        print("  " + _("deep check: one-token completion in {ms:.0f} ms").format(
            ms=deep.latency_ms or 0))
    else:
        print("  " + _("deep check failed: {error}").format(error=deep.error))


def _fig(value: float | None, fmt: str) -> str:
    return "-" if value is None else fmt.format(value)


def render_top(frame: TelemetryFrame) -> str:
    """The compact text view: one line per node, the engine, the active alerts."""
    gib = 1 << 30
    lines = [_("{cluster}  {time}  every {s:g} s").format(
        cluster=frame.cluster, time=format_time(frame.at),
        s=frame.interval)]
    lines.append(f"{_('node'):<12} {_('cpu'):>5} {_('mem'):>5} {_('used'):>6} {_('cache'):>6} "
                 f"{_('avail'):>6} {_('swap'):>6} {_('gpu'):>5} {_('power'):>6} "
                 f"{_('temp'):>5} {_('HF free'):>8}")
    for n in frame.nodes:
        if not n.reachable:
            lines.append(f"{n.node:<12} {_('unreachable')}: {n.error}")
            continue
        lines.append(
            f"{n.node:<12} {_fig(n.cpu_pct, '{:.0f}%'):>5} {_fig(n.mem_pct, '{:.0f}%'):>5} "
            f"{_fig(n.mem_used and n.mem_used / gib, '{:.0f}G'):>6} "
            f"{_fig(n.mem_cache and n.mem_cache / gib, '{:.0f}G'):>6} "
            f"{_fig(n.mem_available and n.mem_available / gib, '{:.0f}G'):>6} "
            f"{_fig(n.swap_used and n.swap_used / gib, '{:.1f}G'):>6} "
            f"{_fig(n.gpu_util, '{:.0f}%'):>5} {_fig(n.gpu_power, '{:.0f}W'):>6} "
            f"{_fig(n.gpu_temp, '{:.0f}C'):>5} "
            f"{_fig(n.disk_free and n.disk_free / gib, '{:.0f}G'):>8}")
    for e in frame.engines:
        where = f"{e.recipe} {e.node}" if len(frame.engines) > 1 and e.recipe else e.node
        lines.append(_("engine {node}:{port}  running {r}  waiting {w}  KV {kv}  "
                       "in {p} tok/s  out {g} tok/s  TTFT p50/p95 {t50}/{t95}  "
                       "TPOT p50/p95 {o50}/{o95}").format(
            node=where, port=e.port, r=_fig(e.running, "{:g}"), w=_fig(e.waiting, "{:g}"),
            kv=_fig(e.kv_cache and e.kv_cache * 100, "{:.0f}%"),
            p=_fig(e.prompt_tps, "{:.0f}"), g=_fig(e.gen_tps, "{:.0f}"),
            t50=_fig(e.ttft_p50, "{:.3f}"), t95=_fig(e.ttft_p95, "{:.3f}"),
            o50=_fig(e.tpot_p50, "{:.3f}"), o95=_fig(e.tpot_p95, "{:.3f}"))
            + (f"  {e.error}" if e.error else ""))
    for alert in frame.active_alerts:
        lines.append("! " + format_time(alert.since) + " "
                     + describe(alert))
    return "\n".join(lines)


def run_top(args: argparse.Namespace) -> int:
    loaded = config_from(args)
    cluster = pick_cluster(loaded.config, args.cluster)
    config = loaded.config
    if args.interval is not None:  # the sampler's history and its frames say this interval
        config = config.model_copy(update={"telemetry_interval_seconds": args.interval})
    interval = config.telemetry_interval_seconds
    clear = not args.json and sys.stdout.isatty()

    async def sample(engine: ClusterControl) -> None:
        checked = 0.0
        count = 0
        while args.count is None or count < args.count:
            started = time.monotonic()
            if started - checked > TELEMETRY_HEALTH_AGE:
                await engine.health(cluster.name)  # which node heads what, containers
                checked = started
            frame = await engine.telemetry(cluster.name)
            if args.json:
                sys.stdout.write(json.dumps(frame.as_dict()) + "\n")
            else:
                if clear:
                    write_control(sys.stdout, "\x1b[H\x1b[2J")
                sys.stdout.write(render_top(frame) + "\n\n")
            sys.stdout.flush()
            count += 1
            if args.count is None or count < args.count:
                await asyncio.sleep(max(0.0, interval - (time.monotonic() - started)))

    with contextlib.suppress(KeyboardInterrupt):  # ^C is how top ends
        with_engine(config, sample)
    return EXIT_OK
