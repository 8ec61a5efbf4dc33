"""Benchmarks of a served model, the pure parts: the tool's argv, its output read into
our result model, comparisons and their text (docs/bench.md)."""
