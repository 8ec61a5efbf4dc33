"""``sparktui pull``'s pure decisions: who needs what, the copy schedule, what a node's
answer may be."""
