"""Fixtures of the replay tests: the example corpus, its agent, and agent variants."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from corpus_tool.replay.cases import LoadedCase, load_case
from corpus_tool.replay.engine import Replayed
from corpus_tool.store.corpus import Corpus, load_config
from tests.conftest import EXAMPLES, ROOT
from tests.replaying import replay_case

CORPUS = EXAMPLES / "corpus"
Agent = Callable[[dict[str, Any], Any], Any]


@pytest.fixture()
def example() -> Corpus:
    """The example corpus (read only)."""
    return Corpus(CORPUS, load_config(CORPUS))


@pytest.fixture()
def agent_code(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The example agent's package, importable as `examples.refund_agent`; forgotten after."""
    monkeypatch.syspath_prepend(str(ROOT))
    import examples.refund_agent.agent as agent

    yield agent
    for name in [n for n in sys.modules if n == "examples" or n.startswith("examples.")]:
        del sys.modules[name]


ReplayCase = Callable[..., Replayed]


@pytest.fixture(name="replay_case")
def replay_case_fixture(example: Corpus) -> ReplayCase:
    """Replay one example case with any agent: replay_case(case_id, agent, mode=...)."""

    def run(case_id: str, agent: Agent, mode: str = "strict", **changes: Any) -> Replayed:
        return replay_case(example.case_dir(case_id), agent, mode, **changes)

    return run


def loaded(corpus: Corpus, case_id: str) -> LoadedCase:
    return load_case(corpus, case_id)


def copy_corpus(tmp_path: Path, entrypoint: str | None = None) -> Path:
    """A copy of the example corpus outside any git repository, optionally re-pointed."""
    import shutil

    target = tmp_path / "corpus"
    shutil.copytree(CORPUS, target)
    if entrypoint is not None:
        config = target / "corpus.yaml"
        text = config.read_text(encoding="utf-8")
        config.write_text(
            text.replace("examples.refund_agent.agent:run", entrypoint), encoding="utf-8"
        )
    return target


def unwaived_corpus(tmp_path: Path) -> Path:
    """A copy of the example corpus without its waiver: refund-wrong-unit fails, exit 1."""
    target = copy_corpus(tmp_path)
    (target / "waivers" / "W-0001.yaml").unlink()
    return target
