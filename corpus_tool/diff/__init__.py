"""Comparing runs: what changed between two trajectories, and whether it matters.

`inputs` reads traces, cases and results documents; `steps` says what is compared and how
steps align; `align` is the LCS alignment; `entities` finds ids, amounts, dates and emails in
an output; `pair` computes the diff of two runs, `suites` of two whole results documents;
`verdict` applies the rules (README, "corpus diff"), with a `judge` never trusted alone;
`render_json` and `render_text` render it.
"""
