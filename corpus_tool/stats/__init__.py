"""Exact statistics for repeated live runs: the bottom layer, importing nothing of ours.

`exact` holds every formula the live gate uses (docs/gate.md writes them out): the Wilson
interval of a pass rate, the one-sided Fisher exact test of base against head, the exact power
of that test and the K per side it needs, the sign test across cases, Holm's step-down
correction, and the group-sequential boundaries of `--repeat auto`. Everything is computed
from `math.comb` (integers, exact) and divided once into a float; no dependency.
"""
