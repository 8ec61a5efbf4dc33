"""Reaching a node: SSH or local transports, host keys, HTTP through the connection, tmux attach."""
