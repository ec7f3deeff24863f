"""What a corpus's replay workers are started with: entrypoint, environment, limits, protection."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from corpus_tool.corpus import Corpus
from corpus_tool.errors import InputError, UsageError
from corpus_tool.replay.loader import import_root
from corpus_tool.replay.process import Launch
from corpus_tool.replay.wire import WorkerSetup

DEFAULT_TIMEOUT_S = 60.0
PASSED = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "SYSTEMROOT")
"""Variables every worker gets (when set): enough to run Python and find programs."""
FIXED = {"PYTHONHASHSEED": "0", "PYTHONUTF8": "1"}
"""Set for every worker unless replay.env passes them: the same set order and encoding in every
worker and on every machine, so a trajectory does not depend on which worker ran it."""
DEFAULT_KEY_ENV = "CORPUS_REDACTION_KEY"


def launch_for(
    corpus: Corpus, timeout_s: float | None = None, environ: Mapping[str, str] | None = None
) -> Launch:
    """How to start workers for `corpus`; --timeout (`timeout_s`) overrides replay.timeout_s."""
    spec = corpus.setting("agent", "entrypoint")
    if not spec:
        raise UsageError(
            f"{corpus.config_path}: no agent.entrypoint; set it to module:callable "
            "(see `corpus replay --help`, the agent)"
        )
    root = corpus.root.resolve()
    setup = WorkerSetup(str(spec), root, dict(corpus.config), protected(root), Path(), Path())
    limit = timeout_s or corpus.setting("replay", "timeout_s", default=DEFAULT_TIMEOUT_S)
    return Launch(setup, worker_env(corpus, os.environ if environ is None else environ), limit)


def worker_env(corpus: Corpus, environ: Mapping[str, str]) -> dict[str, str]:
    """The worker's whole environment: PASSED, then what replay.env names; never the key."""
    named = [str(n) for n in corpus.setting("replay", "env", default=None) or []]
    keys = {DEFAULT_KEY_ENV, str(corpus.setting("redaction", "key_env", default=DEFAULT_KEY_ENV))}
    leaked = sorted(keys.intersection(named))
    if leaked:
        raise InputError(
            f"replay.env passes {', '.join(leaked)}, the redaction key, to the agent; "
            "remove it (an agent never needs the key)",
            corpus.config_path,
        )
    env = {name: environ[name] for name in (*PASSED, *named) if name in environ}
    return {**FIXED, **env}


def protected(corpus_root: Path) -> Path | None:
    """What workers may not write: the corpus's repository (or the corpus itself, or nothing,
    when the temporary directory where workers live lies inside)."""
    scratch = Path(tempfile.gettempdir()).resolve()
    for candidate in (import_root(corpus_root), corpus_root):
        if not scratch.is_relative_to(candidate):
            return candidate
    return None
