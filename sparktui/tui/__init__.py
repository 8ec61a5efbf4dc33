"""The Textual dashboard. Who owns what:

* ``app.py``: :class:`~sparktui.tui.app.SparkApp`, the keys and the one safety gate
  (``CHANGES_CLUSTER`` of ``actions.py``, ``check_action``, ``SparkApp.control``); it is
  the controllers' host. ``screenflow.py``: which screen the config's state calls for,
  and the reload.
* ``session.py``: the session, plain Python (no Textual): the config's state, the engine,
  its rebuild and retire, the file watch.
* ``readers.py``: the read workers (health, logs, telemetry of the cluster in focus);
  ``workers.py``: the coroutines that call the engine and post what it said as messages.
* ``screens/``: each screen owns its own state; the dashboard owns what it shows and the
  selection (``viewmodel.selection.Selection``). ``widgets/``: panes that render what they
  are given and post messages; none calls the engine.
* ``controllers/``: what an action does step by step (serve, stop, exec, tmux, power,
  recipe edits), seeing the app only as ``controllers.host.Host``.
* ``viewmodel/``: plain values and functions the screens show and the controllers read
  (the selection, recipe entries and plan previews, health summaries, action runs, log
  text).
* ``messages.py``: the messages workers and panes post; ``commands.py``: the palette.
"""
