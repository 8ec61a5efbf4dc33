"""serve's preflight of the head's ports: the API port and a multi-node group's
rendezvous port must be free, and a port held by another recipe is named.

Only a refusal reads as free: a probe the head cannot answer (its SSH connection gone),
one that times out (a listener whose queue is full drops the connection attempt) and a
channel sshd will not open (``PermitOpen none``: "administratively prohibited")
fail the preflight naming the node and the port: a failed check is never read as a free
port."""

from __future__ import annotations

from sparktui.config.roles import HEAD, WORKER
from sparktui.engine.remote.node_error import Reason
from sparktui.engine.remote.transport import NodeError, Transport, probe_error
from sparktui.engine.status import Workload
from sparktui.engine.workloads.hooks import StepFailed
from sparktui.i18n import N_
from sparktui.plan.engines.base import rendezvous
from sparktui.plan.fit.shares import HOLDING_STATES
from sparktui.plan.model import LaunchPlan
from sparktui.said import Code, said
from sparktui.steps import Step


class PortSaid(Code):
    HELD_BY = N_("held by recipe {recipes}")
    NOT_OURS = N_("not by a sparktui recipe")
    RENDEZVOUS_BUSY = N_("the rendezvous port {port} of a multi-node group on {node} ({host}) "
                         "is already in use ({held}): one node heads one multi-node recipe at a "
                         "time")
    HELD = N_("port {port} on {node} is held by recipe {recipe} ({container})")
    IN_USE = N_("port {port} is already in use on {node} (not by a sparktui recipe)")
    UNKNOWN = N_("could not check whether port {port} on {node} ({host}) is free: {why}")


PROBE_SECONDS = 5.0


async def _listens(t: Transport, node: str, host: str, port: int) -> bool:
    """Whether something on the node accepts a connection to ``host:port``; StepFailed
    (preflight) when the probe gives no answer either way."""
    try:
        _reader, writer = await t.open_tcp(host, port, PROBE_SECONDS)
    except NodeError as exc:  # the node itself did not answer: unknown, never "free"
        raise StepFailed(node, Step.PREFLIGHT, exc.said) from None
    except TimeoutError:
        why = NodeError(node, Reason.TIMEOUT, f"{PROBE_SECONDS:g} s").said
        raise StepFailed(node, Step.PREFLIGHT, said(
            PortSaid.UNKNOWN, port=port, node=node, host=host, why=why)) from None
    except Exception as exc:
        error = probe_error(node, exc)
        if error is None:
            return False  # refused: nothing listens
        raise StepFailed(node, Step.PREFLIGHT, said(
            PortSaid.UNKNOWN, port=port, node=node, host=host, why=error.said)) from None
    writer.close()
    return True


async def rendezvous_free(t: Transport, plan: LaunchPlan,
                          found: dict[str, list[Workload]]) -> None:
    head = plan.head
    address = rendezvous(head.launch, head.ib_ip)
    if address is None:
        return
    host, port = address
    if not await _listens(t, head.name, host, port):
        return
    spread = {w.recipe for ws in found.values() for w in ws if w.role == WORKER}
    holders = sorted({w.recipe for w in found.get(head.name) or []
                      if w.role == HEAD and w.running and w.recipe in spread
                      and w.recipe != plan.recipe})
    held = (said(PortSaid.HELD_BY, recipes=holders) if holders else said(PortSaid.NOT_OURS))
    raise StepFailed(head.name, Step.PREFLIGHT, said(
        PortSaid.RENDEZVOUS_BUSY, port=port, node=head.name, host=host, held=held))


async def port_free(t: Transport, plan: LaunchPlan, on_head: list[Workload]) -> None:
    head, port = plan.head, plan.port
    holder = next((w for w in on_head if w.port == port and w.recipe != plan.recipe
                   and (w.role == HEAD or w.is_service) and w.state in HOLDING_STATES),
                  None)
    if holder is not None:  # ours, even while it loads and does not listen yet
        raise StepFailed(head.name, Step.PREFLIGHT, said(
            PortSaid.HELD, port=port, node=head.name, recipe=holder.recipe,
            container=holder.name))
    if await _listens(t, head.name, head.ssh_ip, port):
        raise StepFailed(head.name, Step.PREFLIGHT, said(PortSaid.IN_USE, port=port,
                                                          node=head.name))
