"""Importing a corpus's agent entrypoint without leaking its modules into the next corpus."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from corpus_tool.errors import InputError, UsageError
from corpus_tool.replay.doubles.agent import (
    command_agent,
    doubles_in_env,
    plain_agent,
    takes_runtime,
)
from corpus_tool.replay.workers.stdio import agent_stdout, described
from corpus_tool.store.corpus import Corpus

Agent = Callable[[dict[str, Any], Any], Any]


def import_root(corpus_root: Path) -> Path:
    """The root of the git repository holding the corpus, or the corpus directory itself."""
    for candidate in (corpus_root, *corpus_root.parents):
        if (candidate / ".git").exists():
            return candidate
    return corpus_root


@contextmanager
def entrypoint(corpus: Corpus) -> Iterator[Agent]:
    """The agent corpus.yaml names, imported from the corpus's repo: `agent.entrypoint`
    (a Runtime entrypoint, or a plain `run(case_input)`), or `agent.command`.

    The repository root goes first on sys.path for the duration; modules imported from it are
    dropped afterwards (and same-named ones from elsewhere restored), so two corpora, or two
    revisions of one, never see each other's code. A plain function and a command get the
    provider doubles (`replay/doubles`) for as long as the import lives.
    """
    section = corpus.config.agent
    if section.command:
        with doubles_in_env() as served:
            root = import_root(corpus.root.resolve())
            yield command_agent(section.command, root, served.doubles)
        return
    spec = section.entrypoint
    if not spec:
        raise UsageError(
            f"{corpus.config_path}: no agent.entrypoint; set it to module:callable "
            "(see `corpus replay --help`, the agent)"
        )
    with doubles_in_env() as served, imported(corpus, spec, "agent.entrypoint") as agent:
        if takes_runtime(agent):
            served.retire()
            yield agent
        else:
            yield plain_agent(agent, served.doubles)


@contextmanager
def imported(corpus: Corpus, spec: str, setting: str) -> Iterator[Callable[..., Any]]:
    """The `module:callable` a corpus.yaml `setting` names, imported as `entrypoint` does."""
    module_name, _, attr = spec.partition(":")
    root = import_root(corpus.root.resolve())
    saved_path, before = list(sys.path), set(sys.modules)
    shadowed = _evict(module_name.split(".")[0], root)
    sys.path.insert(0, str(root))
    try:
        yield _load(corpus, module_name, attr, root, setting)
    finally:
        sys.path[:] = saved_path
        _forget(before, root)
        sys.modules.update(shadowed)


def _load(corpus: Corpus, module_name: str, attr: str, root: Path, setting: str) -> Agent:
    importlib.invalidate_caches()
    try:
        with agent_stdout():
            module = importlib.import_module(module_name)
    except KeyboardInterrupt:
        raise
    except BaseException as err:  # the agent's import errors, sys.exit() too: one line
        raise InputError(
            f"{setting}: cannot import {module_name} from {root}: "
            f"{type(err).__name__}: {described(err)}",
            corpus.config_path,
        ) from None
    agent = getattr(module, attr, None)
    if not callable(agent):
        raise InputError(f"{setting}: {module_name} has no callable {attr!r}", corpus.config_path)
    return agent  # type: ignore[no-any-return]


def _under(module: ModuleType, root: Path) -> bool:
    where = getattr(module, "__file__", None)
    paths = [where] if where else list(getattr(module, "__path__", []) or [])
    return any(Path(p).resolve().is_relative_to(root) for p in paths if p)


def _evict(top: str, root: Path) -> dict[str, ModuleType]:
    """Set aside modules of the entrypoint's top package loaded from another place."""
    if top == "corpus_tool":
        return {}
    names = [n for n in sys.modules if n == top or n.startswith(top + ".")]
    shadowed = {n: sys.modules[n] for n in names if not _under(sys.modules[n], root)}
    for name in shadowed:
        del sys.modules[name]
    return shadowed


def _forget(before: set[str], root: Path) -> None:
    """Drop modules the agent's import brought in from its repository (never corpus_tool)."""
    for name in set(sys.modules) - before:
        if name == "corpus_tool" or name.startswith("corpus_tool."):
            continue
        module = sys.modules.get(name)
        if module is not None and _under(module, root):
            del sys.modules[name]
