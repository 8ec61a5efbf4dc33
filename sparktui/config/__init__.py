"""Config and recipes: strict models (validated by pydantic-core), TOML loading, file:line
errors.

Import from the module that defines a name (``sparktui.config.loader``,
``sparktui.config.discovery``, ...): path discovery alone must not import the models,
which the dashboard's first frame does without.
"""
