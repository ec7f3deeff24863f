"""One module per command; each `def <verb>(...) -> int` returns the exit status."""
