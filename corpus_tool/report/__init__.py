"""`corpus report`: one self-contained HTML file of a run, a gate or a diff (no network).

`load` reads a results file through the model's one reader (`model/results.read_results`),
`timeline` aligns two runs step by step as `corpus diff` does, `view` turns the typed results
and the gate's decision into the page's data, `html` renders it."""
