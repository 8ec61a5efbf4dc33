"""``sparktui pull``'s pure decisions: what the Hub's snapshot is, which node lacks what,
disk need against free, and the order of the copies (no I/O here)."""
