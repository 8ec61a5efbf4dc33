"""The memory fit of a plan's model on each of its nodes, read over the nodes' own
transports (``sparktui.plan.fit`` does the arithmetic).

Every node at once, each with the timeout it is given; a node that does not answer is
an error naming it, never a fit. When no node has the model in its cache, the Hub is
asked for its files' figures (``sparktui.engine.hub``, imported then: neither the plan
path nor the dashboard's start loads ``huggingface_hub``), and every node that lacks it
gets the same figures, or says why the Hub gave none.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Mapping

from sparktui.engine.deadline import within
from sparktui.engine.remote.transport import NodeError, Transport
from sparktui.plan.fit.calc import ERROR, FitReport, NodeFit
from sparktui.plan.fit.hub import not_cached, refit
from sparktui.plan.fit.probe import ProbeSaid, Question, assess, probe_script, question_for
from sparktui.plan.model import LaunchPlan
from sparktui.said import said

MEMINFO_ONLY = "grep -E '^MemTotal:' /proc/meminfo"


async def _one(node: str, transport: Transport, hf_cache_host: str, question: Question,
               timeout: float) -> NodeFit:
    nonce = secrets.token_hex(8)
    if question.ref is not None:
        script = probe_script(hf_cache_host, question.ref, nonce)
    else:  # no repo to read: the node's memory is still worth a look
        script = f"printf '%s\\n' '@@fit-{nonce} meminfo'; {MEMINFO_ONLY}"
    try:
        result = await within(transport.run(script, timeout=timeout), timeout + 1)
    except NodeError as exc:
        return NodeFit(node, ERROR, exc.said)
    except TimeoutError:
        return NodeFit(node, ERROR, said(ProbeSaid.NO_ANSWER, seconds=timeout))
    if f"@@fit-{nonce} meminfo" not in result.stdout:
        return NodeFit(node, ERROR, (result.stderr or result.stdout).strip()[:200])
    return assess(node, result.stdout, nonce, question)


async def fit_report(plan: LaunchPlan, transports: Mapping[str, Transport],
                     hf_cache_host: str, timeout: float) -> FitReport:
    """One ``NodeFit`` per engine node of ``plan`` (a services-only plan has none)."""
    if not plan.nodes:
        return FitReport(plan.recipe, plan.cluster, plan.model)
    question = question_for(plan)
    fits = list(await asyncio.gather(*(
        _one(n.name, transports[n.name], hf_cache_host, question, timeout)
        for n in plan.nodes)))
    # in no node's cache (of those that answered): the Hub's figures for all of them
    if any(not_cached(f) for f in fits) and all(not_cached(f) or f.verdict == ERROR
                                                for f in fits):
        from sparktui.engine.hub import hub_figures

        answer = await hub_figures(question, timeout)
        fits = [refit(f, answer, question) if not_cached(f) else f for f in fits]
    return FitReport(plan.recipe, plan.cluster, plan.model, fits)
