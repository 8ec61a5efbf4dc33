"""Benchmarks of a served model: find what serves, drive the tool, keep the results."""
