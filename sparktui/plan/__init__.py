"""Launch plans: pure functions from recipe + cluster to what serve will run.

Import from the defining module: ``sparktui.plan.model`` (plain dataclasses) is imported
by the engine and the TUI's messages, and must not pull in ``build`` and the validated
models behind it before the dashboard's first frame.
"""
