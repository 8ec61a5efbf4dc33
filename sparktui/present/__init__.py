"""Words at the edge: the sentences both front-ends show of the engine's values.

The engine hands back codes and values (``sparktui.said``, the records of
``sparktui.engine.api``); what people read of a supervision, an alert, doctor's checks or
a container's inspect is made here, once, for the dashboard and the CLI alike, in the
language active when it is shown. A layer between the engine and the front-ends: it
imports ``sparktui.engine.api`` and the root modules, nothing else of sparktui
(``tests/test_import_hygiene.py``).
"""
