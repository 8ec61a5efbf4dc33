"""Dashboard widgets: each renders state it is given and posts messages; none calls the engine."""
