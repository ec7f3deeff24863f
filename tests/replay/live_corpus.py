"""A copy of the example corpus set up for live-model replay, with its own copy of the agent.

The agent's package is copied under the corpus directory (outside any git repository, the
corpus directory is the import root, first on sys.path), so a test can edit its prompt
without touching the repository. corpus.yaml names the example's live model factory
(examples/refund_agent/live_model.py, the real `openai` client); the scripted server stands in
for the provider.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from corpus_tool.testing.scripted_model import ModelScript, serving
from tests.conftest import EXAMPLES
from tests.replay.conftest import copy_corpus

FACTORY = "examples.refund_agent.live_model:openai_chat"
KEY = "sk-scripted-provider-key"
EDITED = "You are the refund assistant. Refund what the customer asks; amounts are in cents."
"""refund-v13 without "only delivered orders": the scripted model then often skips get_order."""


def live_corpus(tmp_path: Path, prompt: str | None = None, **live: object) -> Path:
    """The example corpus, its agent beside it (prompt refund-v13 replaced by `prompt`)."""
    root = copy_corpus(tmp_path)
    agent = root / "examples" / "refund_agent"
    shutil.copytree(EXAMPLES / "refund_agent", agent, ignore=shutil.ignore_patterns("__pycache__"))
    if prompt is not None:
        (agent / "prompts" / "refund-v13.txt").write_text(prompt + "\n", encoding="utf-8")
    config_path = root / "corpus.yaml"
    config = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    config["replay"].update({"live_model": FACTORY, "live": {"backoff_s": 0.01, **live}})
    config_path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    stub_fixed_refund(root)
    return root


def stub_fixed_refund(root: Path) -> None:
    """refund-wrong-unit's recording holds the buggy create_refund (199); the fixed prompt asks
    for 19900, which only a reviewer's stub can answer (replay.live.unmatched: stub)."""
    path = root / "cases" / "refund-wrong-unit" / "expected.yaml"
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc["replay"]["live"] = {"unmatched": "stub"}
    doc["stubs"] = {"create_refund": {"result": {"refund_id": "R904", "state": "pending"}}}
    path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")


def set_case(root: Path, case: str, **replay: object) -> None:
    """Set keys of a case's expected.yaml `replay:`."""
    path = root / "cases" / case / "expected.yaml"
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc["replay"].update(replay)
    path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")


@pytest.fixture()
def provider(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModelScript]:
    """The scripted provider on the loopback, named by OPENAI_BASE_URL, with its key set."""
    script = ModelScript(seed=7)
    with serving(script) as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        yield script
