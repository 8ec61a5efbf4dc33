"""Memory fit: does a recipe's model fit the memory of each node it runs on (pure)."""
