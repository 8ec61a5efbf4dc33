"""Serving on a cluster whose nodes Slurm allocates (docs/slurm.md)."""
