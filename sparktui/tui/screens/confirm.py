"""Confirmation of a destructive action (stop; power later), after a FRESH health check.

On open the modal runs the check it was given (through the app's engine, never the last
health shown) and lists per node what answers and what runs, marking what the action
will touch. Until the check is back the action's button is disabled; Cancel has the
focus. When the cluster serves (or a node did not answer) the operator also types the
cluster's name. Escape and ``n`` cancel; cancelling changes nothing.

An action the engine would refuse on what the check saw (a restart whose serve would be
refused after its stop) asks ``refuse``: its reason is the verdict and the action's
button stays disabled, whatever is typed; ``r`` checks again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from sparktui.engine.api import ClusterHealth, NodeHealth, Workload
from sparktui.fmt import format_ms, format_number, format_optional
from sparktui.i18n import _, ngettext
from sparktui.present.slurm import slurm_lines, waiting_serves
from sparktui.present.supervision import status_line
from sparktui.said import Said
from sparktui.tui.markup import esc
from sparktui.tui.viewmodel.runs import cluster_workloads, needs_typed_name
from sparktui.tui.widgets.footer import FittingFooter
from sparktui.visible import visible

HealthCheck = Callable[[], Awaitable[ClusterHealth]]
Refusal = Callable[[ClusterHealth], Said | None]
"""Why the action may not go ahead on a fresh health (None: it may)."""


@dataclass(frozen=True)
class ConfirmRequest:
    title: str  # "Stop cluster test"
    verb: str  # the button: "Stop"
    cluster: str
    what: str  # what will happen, in a sentence or two
    check: HealthCheck  # a fresh health check of the cluster
    affects: Callable[[Workload], bool] | None = None  # default: the cluster's workloads
    typed: bool = True  # False: nothing is stopped, so no typed name even when it serves
    untouched: str = ""  # the verdict when nothing is touched (default: nothing runs)
    stays: str = ""  # why a workload not touched stays (default: its cluster is another)
    refuse: Refusal | None = None  # asked on the fresh health: a reason disables the action
    recipe: str | None = None  # the action is on this recipe only (its Slurm jobs are named)


def _figure(value: float | None) -> str:
    return format_optional(value)


def node_block(text: Text, node: NodeHealth, affects: Callable[[Workload], bool],
               stays: str = "") -> None:
    """A node's line, its workloads (those the action touches marked), its engine."""
    text.append(f"{node.node:<12}", style="bold")
    if not node.reachable:
        text.append(_("UNREACHABLE") + f": {node.error or '-'}\n", style="bold red")
        return
    latency = " · " + format_ms(node.latency_ms) if node.latency_ms is not None else ""
    text.append(_("reachable") + latency + "\n", style="green")
    if node.docker_error is not None:
        text.append("  " + _("DOCKER UNREACHABLE: its containers are unknown") + f": "
                    f"{node.docker_error}\n", style="bold red")
    elif not node.workloads:
        text.append("  " + _("no sparktui workload") + "\n", style="dim")
    for wl in node.workloads:
        hit = affects(wl)
        text.append("  ✖ " if hit else "  · ", style="bold red" if hit else "dim")
        text.append(wl.name, style="bold" if hit else "dim")
        text.append(f"  {wl.recipe} · {wl.role} · {wl.status or wl.state}",
                    style="" if hit else "dim")
        if not hit and not wl.ours:
            text.append("\n    " + _("stays: not sparktui's ({why})").format(
                why=visible(str(wl.foreign))), style="dim italic")
        elif not hit:
            text.append("\n    " + (stays or _("stays: it belongs to cluster {cluster}").format(
                cluster=wl.cluster)), style="dim italic")
        text.append("\n")
    for eng in node.engines:
        alive = {True: "ok", False: _("failing"), None: "-"}[eng.health_ok]
        text.append("  " + _("engine: /health {alive} · models {models} · {r} running, "
                             "{w} waiting").format(alive=alive, models=", ".join(eng.models)
                                                   or "-", r=_figure(eng.running),
                                                   w=_figure(eng.waiting))
                    + (f" · {eng.recipe} :{eng.port}" if len(node.engines) > 1 else "") + "\n",
                    style="cyan")
        if eng.error:
            text.append(f"  {eng.error}\n", style="red")


def health_text(health: ClusterHealth, affects: Callable[[Workload], bool],
                stays: str = "") -> Text:
    text = Text()
    for node in health.nodes:
        node_block(text, node, affects, stays)
    status = health.supervision  # an ended supervision is history: the details show it
    line = status_line(status, health.checked_at) if status and status.current else None
    if line:
        text.append("⟳ " + line + "\n", style="cyan")
    for job_line in slurm_lines(health.slurm) if health.slurm is not None else []:
        text.append("⧗ " + job_line + "\n", style="cyan")  # a stop cancels the own ones
    text.rstrip()
    return text


def refused(reason: Said, verb: str) -> Text:
    """The verdict of a refused action: the engine's reason (its node text made visible
    where it was said; a ``Text`` is never read as markup), then what the operator can do."""
    text = Text(str(reason), style="bold red")
    text.append("\n" + _("{verb} cannot be confirmed; r checks again, Esc cancels.").format(
        verb=verb), style="yellow")
    return text


def verdict(health: ClusterHealth, affects: Callable[[Workload], bool], verb: str,
            cluster: str, *, typed: bool = True, untouched: str = "",
            recipe: str | None = None) -> Text:
    hit = [w for w in health.workloads if affects(w)]
    text = Text()
    if hit:
        nodes = sorted({w.node for w in hit})
        text.append(ngettext("{verb} touches {n} workload on {nodes}.",
                             "{verb} touches {n} workloads on {nodes}.", len(hit)).format(
            verb=verb, n=len(hit), nodes=", ".join(nodes)), style="bold")
    elif untouched:
        text.append(untouched, style="bold")
    elif not health.unknown and health.slurm is not None and health.slurm.error is not None:
        # no container, but a serve job Slurm could not be asked about may be starting one
        text.append(_("No container of {cluster} runs, but its Slurm jobs are unknown: "
                      "Slurm could not be asked.").format(cluster=cluster), style="bold red")
    elif not health.unknown:  # a serve job no container shows yet is named, not "nothing"
        jobs = waiting_serves(health.slurm, cluster, recipe) if health.slurm is not None \
            else []
        text.append("\n".join(jobs) or _("Nothing of {cluster} runs on its nodes.").format(
            cluster=cluster), style="bold")
    else:  # a node did not say what it runs: never "nothing runs"
        text.append(_("What runs on {cluster} is {state}.").format(
            cluster=cluster, state=health.unknown), style="bold red")
    if not typed:
        return text
    if health.serving:
        heads = health.engines
        running = sum(e.running or 0 for e in heads)
        waiting = sum(e.waiting or 0 for e in heads)
        text.append("\n" + _("{cluster} is SERVING ({r} running, {w} waiting requests). "
                             "Type its name to enable {verb}.").format(
            cluster=cluster, r=format_number(running), w=format_number(waiting), verb=verb),
            style="bold yellow")
    elif not health.all_known:
        text.append("\n" + _("Some nodes did not answer: what they run is unknown. "
                             "Type the cluster name to enable {verb}.").format(verb=verb),
                    style="bold yellow")
    elif health.unread:
        text.append("\n" + _("The API on {nodes} did not answer in time: it may be serving. "
                             "Type the cluster name to enable {verb}.").format(
            nodes=", ".join(health.unread), verb=verb), style="bold yellow")
    return text


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("escape", "cancel", _("Cancel"), id="confirm.cancel"),
        Binding("n", "cancel", _("Cancel"), show=False, id="confirm.no"),
        Binding("r", "recheck", _("Check again"), show=False, id="confirm.recheck"),
    ]
    AUTO_FOCUS = "#confirm-cancel"

    def __init__(self, request: ConfirmRequest) -> None:
        super().__init__()
        self.request = request
        self.affects = request.affects or cluster_workloads(request.cluster)
        self.health: ClusterHealth | None = None
        self.error: str | None = None
        self.typed_required = False
        self.refusal: Said | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box", classes="modal-box") as box:
            box.border_title = esc(self.request.title)
            box.border_subtitle = _("Esc or n cancels")
            yield Static(Text(self.request.what), id="confirm-what")
            with VerticalScroll(id="confirm-health"):
                yield Static(id="confirm-health-text")
            with Vertical(id="confirm-bottom"):  # docked: a short terminal clips the check
                yield Static(id="confirm-verdict")
                yield Input(placeholder=self.request.cluster, id="confirm-name")
                with Horizontal(classes="modal-buttons"):
                    yield Button(_("Cancel"), id="confirm-cancel")
                    yield Button(self.request.verb, id="confirm-ok", variant="error",
                                 disabled=True)
        yield FittingFooter()

    def on_mount(self) -> None:
        self.query_one("#confirm-name", Input).display = False
        self._check()

    @property
    def confirm_button(self) -> Button:
        return self.query_one("#confirm-ok", Button)

    # -- the fresh check -----------------------------------------------------------------------

    def _check(self) -> None:
        self.health, self.error, self.refusal = None, None, None
        self.confirm_button.disabled = True
        self.query_one("#confirm-health-text", Static).update(Text(
            _("Checking the health of {cluster} now…").format(cluster=self.request.cluster),
            style="italic"))
        self.query_one("#confirm-verdict", Static).update(Text(
            _("{verb} is enabled once the check is back.").format(verb=self.request.verb),
            style="dim"))
        self._run_check()

    @work(exclusive=True, group="confirm-check", exit_on_error=False)
    async def _run_check(self) -> None:
        try:
            health = await self.request.check()
        except Exception as exc:  # the check failed: nothing to confirm against
            self._show_failure(str(exc) or type(exc).__name__)
            return
        self.show_health(health)

    def show_health(self, health: ClusterHealth) -> None:
        self.health = health
        refuse = self.request.refuse
        self.refusal = refuse(health) if refuse is not None else None
        self.query_one("#confirm-health-text", Static).update(health_text(health, self.affects,
                                                                          self.request.stays))
        self.query_one("#confirm-verdict", Static).update(
            refused(self.refusal, self.request.verb) if self.refusal is not None else
            verdict(health, self.affects, self.request.verb, self.request.cluster,
                    typed=self.request.typed, untouched=self.request.untouched,
                    recipe=self.request.recipe))
        self.typed_required = (self.refusal is None and self.request.typed
                               and needs_typed_name(health))
        name = self.query_one("#confirm-name", Input)
        name.display = self.typed_required
        self._update_button()

    def _show_failure(self, error: str) -> None:
        self.error = error
        self.query_one("#confirm-health-text", Static).update(
            Text(_("The health check failed: {error}").format(error=error), style="bold red"))
        self.query_one("#confirm-verdict", Static).update(Text(
            _("Nothing can be confirmed without a health check; r checks again."),
            style="yellow"))
        self.confirm_button.disabled = True

    def name_matches(self) -> bool:
        return self.query_one("#confirm-name", Input).value.strip() == self.request.cluster

    def _update_button(self) -> None:
        ready = (self.health is not None and self.refusal is None
                 and (not self.typed_required or self.name_matches()))
        self.confirm_button.disabled = not ready

    # -- the operator -------------------------------------------------------------------------

    @on(Input.Changed, "#confirm-name")
    def _on_name(self, event: Input.Changed) -> None:
        self._update_button()

    @on(Input.Submitted, "#confirm-name")
    def _on_name_submitted(self, event: Input.Submitted) -> None:
        if not self.confirm_button.disabled:
            self.dismiss(True)

    @on(Button.Pressed, "#confirm-ok")
    def _on_ok(self, event: Button.Pressed) -> None:
        event.stop()
        if not self.confirm_button.disabled:
            self.dismiss(True)

    @on(Button.Pressed, "#confirm-cancel")
    def _on_cancel(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(False)

    def action_cancel(self) -> None:
        self.dismiss(False)

    def action_recheck(self) -> None:
        if self.error is not None or self.refusal is not None:
            self._check()
