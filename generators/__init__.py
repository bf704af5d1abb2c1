"""Scenario generators: true and false facts for a predicate (issue 3)."""
