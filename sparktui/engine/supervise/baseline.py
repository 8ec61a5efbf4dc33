"""Which stop or power marks a supervisor has seen: the ones on a node when it first read
that node are history (an operator's stop of an hour ago does not end a supervision armed
now); a mark that appears after is an operator acting, and may end it."""

from __future__ import annotations

from sparktui.engine.supervise.record import Mark


class MarkBaseline:
    def __init__(self) -> None:
        self.seen: set[str] = set()  # ids of the marks already read
        self.read_from: set[str] = set()  # nodes whose marks it has read once

    def disarming(self, marks: dict[str, list[Mark]], cluster: str, recipe: str
                  ) -> Mark | None:
        """A mark new since arming that ends the supervision of ``recipe`` on
        ``cluster``. A node read for the first time (it did not answer when the
        supervisor armed) gives its baseline instead."""
        found = None
        for node, node_marks in marks.items():
            first = node not in self.read_from
            self.read_from.add(node)
            for mark in node_marks:
                if mark.id in self.seen:
                    continue
                self.seen.add(mark.id)
                if not first and found is None and mark.disarms(cluster, recipe):
                    found = mark
        return found
