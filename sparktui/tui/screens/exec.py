"""Exec: an ``[exec_aliases]`` entry or a typed command on every node of the cluster.

The app hands over ``run(command)``, which calls the engine; the output comes back
grouped per node with its exit code, in a scrollable area.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from sparktui.engine.api import ExecResult
from sparktui.i18n import _
from sparktui.tui.markup import esc
from sparktui.tui.widgets.footer import FittingFooter

ExecRun = Callable[[str], Awaitable[list[ExecResult]]]


def exec_output(command: str, results: list[ExecResult]) -> Text:
    """``$ command``, then per node ``== node (exit N)`` with its stdout and stderr."""
    text = Text()
    text.append(f"$ {command}\n", style="bold")
    for r in results:
        if r.exit_code is None:
            code, style = _("unreachable"), "bold red"
        else:
            code, style = f"exit {r.exit_code}", "bold green" if r.exit_code == 0 else "bold red"
        text.append(f"\n== {r.node} ", style="bold")
        text.append(f"({code})", style=style)
        if r.error:
            text.append(f": {r.error}", style="red")
        text.append("\n")
        if r.stdout:
            text.append(r.stdout.rstrip("\n") + "\n")
        if r.stderr:
            text.append(r.stderr.rstrip("\n") + "\n", style="red")
        if not (r.stdout or r.stderr or r.error):
            text.append(_("(no output)") + "\n", style="dim")
    text.rstrip()
    return text


class ExecScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "dismiss", _("Close"), id="exec.close")]

    def __init__(self, cluster: str, nodes: list[str], aliases: Mapping[str, str],
                 run: ExecRun) -> None:
        super().__init__()
        self.cluster = cluster
        self.nodes = nodes
        self.aliases = dict(aliases)
        self.run_command = run
        self.output = ""
        """The output as plain text (for tests)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="exec-box", classes="modal-box") as box:
            box.border_title = esc(_("Exec on {cluster}: {nodes}").format(
                cluster=self.cluster, nodes=", ".join(self.nodes)))
            box.border_subtitle = _("Enter runs · Esc closes")
            if self.aliases:
                yield OptionList(*(self._option(name, cmd) for name, cmd in self.aliases.items()),
                                 id="exec-aliases")
            yield Input(placeholder=_("or type a command for every node, then Enter"),
                        id="exec-command")
            with VerticalScroll(id="exec-output"):
                yield Static(Text(_("Pick an alias or type a command."), style="dim"),
                             id="exec-output-text")
        yield FittingFooter()

    @staticmethod
    def _option(name: str, command: str) -> Option:
        return Option(Text.assemble((f"{name:<14}", "bold"), (command, "dim")), id=name)

    def on_mount(self) -> None:
        target = "#exec-aliases" if self.aliases else "#exec-command"
        self.query_one(target).focus()

    @on(OptionList.OptionSelected, "#exec-aliases")
    def _on_alias(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.run_exec(self.aliases[event.option.id])

    @on(Input.Submitted, "#exec-command")
    def _on_command(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip():
            self.run_exec(event.value.strip())

    def run_exec(self, command: str) -> None:
        self._show(Text.assemble((f"$ {command}\n\n", "bold"),
                                 (_("running on {nodes}…").format(nodes=", ".join(self.nodes)),
                                  "italic")))
        self._exec(command)

    @work(exclusive=True, group="exec", exit_on_error=False)
    async def _exec(self, command: str) -> None:
        try:
            results = await self.run_command(command)
        except Exception as exc:
            self._show(Text(_("exec failed: {error}").format(error=str(exc) or
                                                             type(exc).__name__), style="red"))
            return
        self._show(exec_output(command, results))

    def _show(self, text: Text) -> None:
        self.output = text.plain
        self.query_one("#exec-output-text", Static).update(text)
        self.query_one("#exec-output", VerticalScroll).scroll_home(animate=False)
