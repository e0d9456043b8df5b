"""One module per ruleset: each builds a `Ruleset` from options and describes itself."""
