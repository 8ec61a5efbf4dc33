"""Supervision: keep a serving group alive, and never fight the operator (docs/supervise.md)."""
