"""A check run: the selected cases replayed, graded, waived, explained and reported — what
`corpus check`, `corpus replay` and the pytest plugin share."""

from __future__ import annotations
