"""A recipe's workloads on the nodes: discover, serve, stop, logs."""
