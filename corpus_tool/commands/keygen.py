"""`corpus keygen [--output FILE]`: a new redaction key, printed or written outside the repo."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from corpus_tool import redact


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
