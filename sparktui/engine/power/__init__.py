"""Power through Home Assistant, with SSH as the guard."""
