"""The trace model: traces, events and expectations as frozen, typed values.

Dicts exist only at the file boundary: a schema-checked document becomes a `Trace` or an
`Expected` once (`from_doc`), every stage after that reads attributes, and a `Trace` is
written back with `to_doc`. The modules: `values` (shared small values and the `ABSENT`
sentinel), `events` (one class per event type), `trace`, `expected`, and `diff` (the one diff
engine).
"""
