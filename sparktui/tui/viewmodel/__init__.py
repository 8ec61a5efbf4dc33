"""What the screens show and the controllers act on, computed without widgets or Textual:
the selection, recipe entries and plan previews, health summaries, the runs of actions,
log text (levels, search, saving). Plain values and functions, testable without an app."""
