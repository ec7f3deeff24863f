"""The merge gate and waivers: waivers applied to verdicts, base against head per case, reports.

`waivers` (the one place a waiver excuses a failure), `worktree` (a temporary checkout of a
revision, always removed), `gitdir` (the user's git dir put back when agent code the gate
replayed changed it), `sides` (replaying one side into a results document), `policy` (base
against head: regression, newly passing, still failing, ...), `live` (a live case over K
attempts per side by the exact tests of `corpus_tool.stats`), `rounds` (`--repeat auto`),
`shift` (corpus diff's distribution shift of the live cases), `report` and `markdown` (what the
gate prints and writes), `status` (drift of recorded versions, expiring waivers).
"""
