"""Benchmarks of a served model, the pure parts: the tool's argv, its output read into
our result model, comparisons and their text (docs/bench.md)."""

VIAS = ("auto", "head", "router")
"""Where the load goes: ``auto`` is the cluster's router when it holds the model (what
the cluster's clients reach), else the head; ``head`` and ``router`` insist. Defined
here, light, for ``bench --via`` (the parser must not import the engine)."""
