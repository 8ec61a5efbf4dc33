"""``sparktui pull``: a recipe's image and model fetched once and copied node to node."""
