"""Async side effects: SSH transports, serve/stop, logs, health, doctor, exec."""
