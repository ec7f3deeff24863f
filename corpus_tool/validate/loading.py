"""Cases read for replay through the parsed-document cache, outside a validation run.

`corpus gate` replays the selected cases of two checkouts without validating them: each case is
read as `load_case` reads it (an unreadable, unparsable or schema-invalid file is the same
InputError naming it), but a file whose bytes were read and checked before is not parsed
again. An entry is kept only for a file that parsed and fit its schema, under `read_key`: the
tool (its code and schemas), the input limit, the case, the kind and the file's bytes, so both
sides of a gate (and `corpus regrade`, which keys its reads the same way) share the entries of
an unchanged file, and a changed file or another tool names another entry. What guards an
entry on every read is documents.py's.

This module sits above replay (it builds the `Load` that replay's runner calls) and is imported
only by the commands that read cases this way, so `corpus validate` does not load replay.
"""

from __future__ import annotations

from typing import Any

from corpus_tool.io import files
from corpus_tool.replay.cases import LoadedCase, load_case, read_checked
from corpus_tool.replay.runner import Load
from corpus_tool.store.corpus import Corpus
from corpus_tool.validate.cache import read_key
from corpus_tool.validate.documents import DocumentCache

KINDS = ("trace", "expected")


def checked(corpus: Corpus, case_id: str, kind: str, raw: bytes, documents: DocumentCache) -> Any:
    """`read_checked` of a case file's bytes, through the document cache: a kept entry of the
    same bytes and tool, else parsed and checked (an InputError as `read_checked` raises it)
    and kept."""
    key = read_key(case_id, kind, raw)
    kept = documents.get(key)
    if kept is not None and set(kept) == {kind}:
        return kept[kind]
    doc = read_checked(corpus, case_id, kind, raw)
    documents.put(key, {kind: doc})
    return doc


def cached_load(corpus: Corpus, documents: DocumentCache) -> Load:
    """A `Load` for replay's runner: `load_case` of the case, its documents from the cache."""

    def load(case_id: str) -> LoadedCase:
        folder = corpus.case_dir(case_id)
        raws: dict[str, bytes] = {}
        docs: dict[str, Any] = {}
        for kind in KINDS:  # in load_case's order, so a case with two bad files says the same
            raws[kind] = files.read_bytes(folder / f"{kind}.yaml", within=corpus.root)
            docs[kind] = checked(corpus, case_id, kind, raws[kind], documents)
        return load_case(corpus, case_id, raws, docs)

    return load
