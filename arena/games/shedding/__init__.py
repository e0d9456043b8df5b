"""The shedding core: one engine for every match-the-top-card ruleset (placeholder)."""
