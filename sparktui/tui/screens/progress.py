"""The steps of a serve, stop or power action as they arrive; closing the view leaves the
action running.

The screen only renders an :class:`ActionRun` the app keeps; the app calls
:meth:`ProgressScreen.refresh_run` when an event arrives, and ``o`` reopens the view.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from sparktui.fmt import format_seconds
from sparktui.i18n import _
from sparktui.labels import outcome_line, state_label, step_label
from sparktui.scrub import scrub
from sparktui.tui.actions import Action
from sparktui.tui.markup import esc
from sparktui.tui.messages import PullOffered
from sparktui.tui.screens.transfers import transfers_table
from sparktui.tui.viewmodel.runs import ActionRun, ProgressRow, short_detail
from sparktui.tui.widgets.footer import FittingFooter

MARKS = {"ok": ("✓", "green"), "warn": ("!", "bold yellow"), "failed": ("✗", "bold red"),
         "started": ("…", "cyan"), "waiting": ("◷", "cyan")}


def steps_table(rows: list[ProgressRow]) -> Table:
    table = Table.grid(padding=(0, 1))
    table.add_column(width=1)
    table.add_column(style="bold", no_wrap=True)
    table.add_column(no_wrap=True)
    table.add_column(no_wrap=True)
    table.add_column(overflow="fold")
    for row in rows:
        mark, style = MARKS.get(row.state, ("?", ""))
        table.add_row(Text(mark, style=style), Text(row.node or "-"), Text(step_label(row.step)),
                      Text(state_label(row.state), style=style),
                      Text(scrub(short_detail(row.detail))))
    return table


def status_line(run: ActionRun, now: float) -> Text:
    elapsed = format_seconds(round(run.elapsed(now)), 0)
    if run.running:
        return Text.assemble(("◷ ", "cyan"), (run.outcome() + " · " + elapsed, "bold"))
    assert run.result is not None
    if run.result.ok:
        return Text.assemble(("✓ ", "green"), (run.outcome(), "bold green"), f" · {elapsed}")
    return Text.assemble(("✗ ", "bold red"), (run.outcome(), "bold red"), f" · {elapsed}")


def outcomes_text(run: ActionRun) -> Text:
    """A power action's end: what was done and what was not (and why)."""
    result = run.result
    assert result is not None
    text = Text()
    if result.done:
        text.append(_("done:") + "\n", style="bold green")
        for outcome in result.done:
            text.append("  " + scrub(outcome_line(outcome)) + "\n")
    if result.not_done:
        text.append(_("not done:") + "\n", style="bold red")
        for outcome in result.not_done:
            text.append("  " + scrub(outcome_line(outcome)) + "\n", style="red")
    if not result.outcomes and result.detail:
        text.append(scrub(str(result.detail)), style="red")
    text.rstrip()
    return text


def failure_text(run: ActionRun) -> Text:
    """Where it failed and the engine's whole detail (a container's last log lines)."""
    result = run.result
    assert result is not None and not result.ok
    if run.power is not None:
        return outcomes_text(run)
    text = Text()
    text.append(_("node") + f"  {result.failed_node or '-'}\n", style="bold")
    text.append(_("step") + f"  {step_label(result.failed_step or '-')}\n", style="bold")
    text.append(scrub(str(result.detail).rstrip()) or "-", style="red")
    if run.action is Action.SERVE:
        note = serve_failure_note(run)
        if note:
            text.append("\n\n" + note, style="dim")
    if run.offers_pull:
        text.append("\n" + _("P pulls {recipe}'s image and model onto {cluster} (the same as "
                             "sparktui pull {recipe} --cluster {cluster})").format(
            recipe=run.recipe, cluster=run.cluster), style="bold")
    return text


def serve_failure_note(run: ActionRun) -> str:
    """What a failed serve left behind: what was removed, what is left (named), or
    nothing (only when nothing was started, nor created by a launch that failed)."""
    steps = {(e.step, e.state) for e in run.events}
    left = [f"{e.detail} ({e.node})" for e in run.events if e.step == "left"]
    removed = [f"{e.detail} ({e.node})" for e in run.events
               if e.step == "rollback" and e.state == "ok" and e.node]
    lines = []
    if removed:
        lines.append(_("Removed what this serve had started: {workloads}.").format(
            workloads=", ".join(removed)))
    if left:
        lines.append(_("What this serve had started is still on the cluster: {workloads}; "
                       "stop it with sparktui stop --cluster {cluster} --recipe {recipe}."
                       ).format(
            workloads=", ".join(left), cluster=run.cluster, recipe=run.recipe))
    elif ("rollback", "failed") in steps:
        lines.append(_("Not everything this serve had started could be removed (see the "
                       "rollback rows)."))
    if lines:
        return "\n".join(lines)
    # A service instance's first "ok" on its node is its launch.
    started = ("launch", "ok") in steps or any(
        e.step == "service" and e.state == "ok" and e.node for e in run.events)
    if not started:
        return _("Nothing was started on the cluster.")
    return _("What this serve had started is still on the cluster for a post-mortem; "
             "stop it when done.")


class ProgressScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "dismiss", _("Close"), id="progress.close"),
        Binding("q", "dismiss", _("Close"), show=False, id="progress.close_q"),
        Binding("o", "dismiss", _("Close"), show=False, id="progress.close_o"),
        Binding("P", "offer_pull", _("Pull image and model"), id="progress.pull"),
    ]

    def __init__(self, run: ActionRun, clock: Callable[[], float]) -> None:
        super().__init__()
        self.run = run
        self.clock = clock

    def compose(self) -> ComposeResult:
        with Vertical(id="progress-box", classes="modal-box") as box:
            box.border_title = esc(self.run.title())
            yield Static(id="progress-status")
            yield Static(id="progress-transfers")
            with VerticalScroll(id="progress-steps"):
                yield Static(id="progress-table")
            with VerticalScroll(id="progress-failure"):
                yield Static(id="progress-failure-text")
        yield FittingFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "offer_pull":
            return self.run.offers_pull
        return True

    def action_offer_pull(self) -> None:
        """A serve refused for a missing image or model: its pull, behind its own
        confirmation (the app's flows show it once this view is closed)."""
        if self.run.offers_pull:
            self.post_message(PullOffered(self.run.id))
            self.dismiss()

    def on_mount(self) -> None:
        self.refresh_run()
        self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        if self.run.running:
            self.query_one("#progress-status", Static).update(status_line(self.run, self.clock()))

    def refresh_run(self) -> None:
        """Show the run as it is now: called for every event and at the end."""
        run = self.run
        box = self.query_one("#progress-box")
        box.border_subtitle = (_("Esc closes; the {action} goes on (o reopens)").format(
            action=run.label) if run.running else _("Esc closes"))
        box.set_class(not run.running and run.result is not None and not run.result.ok,
                      "-failed")
        self.query_one("#progress-status", Static).update(status_line(run, self.clock()))
        rows = run.rows()
        table = steps_table(rows) if rows else Text(_("Waiting for the first step…"),
                                                    style="dim")
        self.query_one("#progress-table", Static).update(table)
        transfers = self.query_one("#progress-transfers", Static)
        transfers.display = bool(run.transfers.rows())
        if transfers.display:
            transfers.update(transfers_table(run.transfers, self.clock()))
        failed = run.result is not None and not run.result.ok
        failure = self.query_one("#progress-failure")
        failure.display = failed
        if failed:
            self.query_one("#progress-failure-text", Static).update(failure_text(run))
        if run.result is not None:  # the pull offer's key depends on how it ended
            self.refresh_bindings()
        self.query_one("#progress-steps", VerticalScroll).scroll_end(animate=False)
