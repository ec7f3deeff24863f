"""Minimization: the fewest events of a case that still reproduce its trigger (ddmin, with
replay as the oracle).

`units` groups events so every candidate stays a complete trace, `ddmin` searches, `oracle`
replays a candidate and says whether it reproduces, `shrink` puts them together, `stale`
reports expectations that name removed events, and `case` reads a corpus's settings.
"""
