"""Controllers: what the dashboard's actions do, step by step (which screens, in which
order, the run they start). Each sees the app only through ``host.Host``: the selection,
notify, push a screen, a fresh health check, run a worker, the safety gate."""
