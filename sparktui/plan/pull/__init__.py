"""``sparktui pull``'s pure decisions (no I/O here): who needs the image and the copy
schedule, what a node's answer may be; what the Hub's snapshot is, which node lacks which
file, disk need against free."""
