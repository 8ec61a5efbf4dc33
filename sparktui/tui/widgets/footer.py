"""A footer that shows only the keys that fit, whole: a key cut in half reads as a
different word (``s Ser▏``), and in another language the labels are longer.

The keys nearest the focus come first (the screen's own, then the app's), Help and Quit
always stay (Help lists every key), and the command palette keeps its place on the
right. Narrow terminals, and keys that would not all fit, get the compact style (one
cell less per key). Dialogs compose
one too, so they show their own keys instead of the dashboard's beneath them.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.events import Resize
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

COMPACT_BELOW = 100
"""Terminals narrower than this get the compact footer."""
PINNED = frozenset({"help", "quit"})
"""Actions whose key is always shown."""


def key_width(key: FooterKey, *, compact: bool) -> int:
    """Cells a footer key takes (its paddings and margin as Footer's CSS sets them)."""
    label = cell_len(key.key_display) + (cell_len(key.description) + 1 if key.description else 0)
    palette = "-command-palette" in key.classes
    if compact:
        return label + 1  # margin-right 1 (the palette: its border instead)
    return label + 2 + (1 if palette else 0)  # paddings 1 + 1; the palette's border


def fitting(keys: list[FooterKey], width: int, *, compact: bool) -> list[FooterKey]:
    """The keys to show in ``width`` cells: the palette and the pinned first, then the
    others in order until one does not fit (later ones would skip over it)."""
    palette = [k for k in keys if "-command-palette" in k.classes]
    others = [k for k in keys if k not in palette]
    room = width - sum(key_width(k, compact=compact) for k in palette)
    pinned = [k for k in others if k.action in PINNED]
    room -= sum(key_width(k, compact=compact) for k in pinned)
    shown = set(map(id, pinned))
    for key in others:
        if id(key) in shown:
            continue
        need = key_width(key, compact=compact)
        if need > room:
            break
        room -= need
        shown.add(id(key))
    return [k for k in others if id(k) in shown] + palette


class FittingFooter(Footer):
    def compose(self) -> ComposeResult:
        width = self.app.size.width
        widgets: list[Widget] = list(super().compose())
        keys = [w for w in widgets if isinstance(w, FooterKey)]
        if len(keys) != len(widgets):  # binding groups: shown as Footer shows them
            yield from widgets
            return
        shown = fitting(keys, width, compact=False)
        compact = width < COMPACT_BELOW or len(shown) < len(keys)  # one cell less per key
        if compact:
            shown = fitting(keys, width, compact=True)
        self.set_reactive(Footer.compact, compact)
        self.set_class(compact, "-compact")
        yield from shown

    _composed_for = 0
    _shown: tuple[object, ...] | None = None

    async def recompose(self) -> None:
        """Footer recomposes on every change of focus or bindings: the keys are
        removed and mounted again even when they are the ones shown, which cost the
        dashboard more CPU than any pane. Here only a change of what shows does."""
        if self.is_attached:
            shown = self._would_show()
            if shown is not None and shown == self._shown:
                return
            self._shown = shown
        await super().recompose()
        # Each key binds the footer's ``compact`` (``data_bind``): the footer keeps the key
        # in its watchers until ``compact`` next changes by assignment, which ours never
        # does (``set_reactive``). So every removed key stayed, with its styles and
        # strips: ~25 widgets per focus change, and under a log flood each full garbage
        # collection scanned them all (the p95 of a key press). This lets Textual drop
        # the watchers of the keys just removed (and gives the new ones the same value).
        self.mutate_reactive(Footer.compact)

    def _would_show(self) -> tuple[object, ...] | None:
        """What ``compose`` would show, as a value read from the screen's bindings (what
        Footer's compose reads) and the width; None when a binding group is shown (always
        recomposed). Read, not composed: building ~30 keys to compare them was the most
        of a focus change's work."""
        if not self._bindings_ready:
            return ()
        app, active = self.app, self.screen.active_bindings
        keys: list[object] = [app.size.width]
        for _node, binding, enabled, tooltip in active.values():
            if not binding.show:
                continue
            if binding.group is not None:
                return None
            keys.append((binding.key, app.get_key_display(binding), binding.description,
                         binding.action, enabled, tooltip))
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE:
            palette = active.get(app.COMMAND_PALETTE_BINDING)
            if palette is not None:
                keys.append(("palette", palette[1].key, palette[2], palette[3]))
        return tuple(keys)

    def on_resize(self, event: Resize) -> None:
        if self._bindings_ready and event.size.width != self._composed_for:
            self._composed_for = event.size.width
            self.call_after_refresh(self.recompose)
