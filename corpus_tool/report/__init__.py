"""`corpus report`: one self-contained HTML file of a run, a gate or a diff (no network).

`load` reads results documents (the one place), `timeline` aligns two runs step by step as
`corpus diff` does, `view` turns documents into the report's data, `html` renders it."""
