"""A plan's services on the nodes: launch, labels read back, probes, health."""
