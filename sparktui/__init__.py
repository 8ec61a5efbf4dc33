"""sparktui: launch and watch LLM inference on DGX Spark clusters."""

__version__ = "0.1.0"
