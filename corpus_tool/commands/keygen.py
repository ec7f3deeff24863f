"""`corpus keygen [--output FILE | --show-id]`: a new redaction key, printed or written outside
the repo; or the id of the key set now, beside the corpus's."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from corpus_tool import redact
from corpus_tool.redact.rotation import recorded_key_id
from corpus_tool.store.corpus import Corpus


def keygen(output: Path | None, corpus_root: Path | None, out: TextIO, err: TextIO) -> int:
    """Print a fresh key (stdout holds only the key), or write it to a file outside any repo.

    `corpus_root` is the corpus the command runs in, if any: the key may not land there either.
    """
    key = redact.keygen()
    key_id = redact.RedactionKey(key.encode("utf-8"), "new").key_id
    if output is None:
        out.write(key + "\n")
        err.write(
            f"new redaction key {key_id}: export it as {redact.DEFAULT_KEY_ENV} (or the "
            "variable corpus.yaml redaction.key_env names) and keep it in a secret store, never "
            "in the repository; whoever holds it can link pseudonyms to values\n"
        )
        return 0
    redact.write_key_file(output, corpus_root, key)
    out.write(
        f"wrote new redaction key {key_id} to {output} (readable by you only); name it in "
        f"corpus.yaml:\n  redaction:\n    key_file: {output}\n"
    )
    return 0


def show_id(corpus: Corpus, environ: Mapping[str, str], out: TextIO, err: TextIO) -> int:
    """Print the id of the key set now (stdout holds only the id); say whether it is the
    corpus's (0) or not (1)."""
    key = redact.load_key(corpus.config.redaction, corpus.root, environ)
    out.write(key.key_id + "\n")
    current, where = _corpus_key_id(corpus)
    if current is None:
        err.write(f"the key from {key.source}; the corpus has no case yet, any key fits\n")
        return 0
    same = "the same key" if current == key.key_id else "a different key: not for this corpus"
    err.write(f"the key from {key.source}; the corpus key is {current} ({where}): {same}\n")
    return 0 if current == key.key_id else 1


def _corpus_key_id(corpus: Corpus) -> tuple[str | None, str]:
    named = corpus.config.redaction.key_id
    if named is not None:
        return named, "corpus.yaml redaction.key_id"
    recorded = recorded_key_id(corpus)
    if recorded is None:
        return None, ""
    return recorded.key_id, f"carried by {recorded.trace.relative_to(corpus.root)}"
