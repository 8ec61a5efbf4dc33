"""Live figures: samples of nodes and engines, their history and alerts."""
