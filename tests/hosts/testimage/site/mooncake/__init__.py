"""Test image look-alike (tests/hosts/testimage)."""
