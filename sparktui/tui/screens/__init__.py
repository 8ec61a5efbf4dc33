"""Screens and modals of the dashboard."""
