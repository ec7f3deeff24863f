"""Imported by the forkserver of tests/processes.py: one `corpus add` there, so every child
forks with the modules loaded and the schemas and the redaction matcher already compiled
(what a long-lived process has; a child then pays for its own work only)."""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from pathlib import Path

from corpus_tool.cli import main
from corpus_tool.commands.add import AddOptions, add
from corpus_tool.store.corpus import open_corpus

_INCIDENT = Path(__file__).resolve().parents[1] / "examples" / "incidents" / "refund-success.json"


def _warm() -> None:
    with tempfile.TemporaryDirectory() as where:
        corpus = Path(where) / "corpus"
        env = {**os.environ, "CORPUS_REDACTION_KEY": "warm-up-key-" + "0" * 32}
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            main(["init", str(corpus)])
            add(open_corpus(corpus, corpus), AddOptions(_INCIDENT, "warm"), io.StringIO(), env)
            main(["-C", str(corpus), "validate"])


_warm()
