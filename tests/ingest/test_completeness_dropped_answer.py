"""Completeness: an answer the source holds and an importer loses is refused, whatever format.

The defects this guards against were importers reading the wrong field (pydantic-ai through
Langfuse: `content: null` although the generation's output held `message.content`). Here the
same defect is planted in the one function every importer of these formats builds its model
calls with: the first answered call loses its text and its tool calls, and keeps the rest (the
finish reason, the usage), as an importer reading the wrong field would. The source is then
searched, by a walk of its own JSON that does not call the importer, for the answer that was
lost: it holds it. `corpus add` must refuse the file and write nothing.
"""

from __future__ import annotations

import importlib
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from corpus_tool.ingest import build
from tests.conftest import Cli

# Every module that builds model calls with build.model_event (bound at import).
BUILDERS = (
    "corpus_tool.ingest.spans",
    "corpus_tool.ingest.transcript",
    "corpus_tool.ingest.formats.claude_agent_sdk",
    "corpus_tool.ingest.formats.inspect_ai",
    "corpus_tool.ingest.formats.langsmith",
    "corpus_tool.ingest.formats.mini_swe_agent",
    "corpus_tool.ingest.formats.openai_agents",
    "corpus_tool.ingest.formats.openhands",
    "corpus_tool.ingest.formats.openhands_sdk",
    "corpus_tool.ingest.formats.swe_agent",
)

# Shared samples that import whole, one or more per importer that builds with model_event.
SOURCES = [
    "agentops/ibm_acp_tutorial_agent_ops_traces.md.json",
    "inspect_ai/log_message_deduplication.eval",
    "langfuse/langgraph-2025-08-22.json",
    "langfuse/openai-agents-2025-09-30.json",
    "langfuse_frameworks/langgraph-js-2025-10-30.trace.json",
    "langsmith/langsmith-sdk_langsmith_py_wrap_openai_stream.json",
    "mini_swe_agent/gemini-3-pro-preview_django__django-16255.traj.json",
    "openhands/basic.json",
    "otel_genai/agentevals_kagent_tempo_export_with_batches.json",
    "vercel_ai_sdk/genai-interlingua_vercel_in.json",
]


def test_every_builder_of_model_calls_is_patched() -> None:
    """The list above is every module that imports model_event, so none escapes the plant."""
    root = Path(build.__file__).parent
    users = {
        "corpus_tool." + ".".join(p.relative_to(root.parent).with_suffix("").parts)
        for p in root.rglob("*.py")
        if p.name != "build.py" and "model_event" in p.read_text(encoding="utf-8")
    }
    assert users == set(BUILDERS)


class DropFirstAnswer:
    """model_event, with the first answered call's text and tool calls lost."""

    def __init__(self) -> None:
        self.lost: dict[str, Any] | None = None

    def __call__(
        self, model: Any, messages: Any, content: Any, calls: Any, **more: Any
    ) -> dict[str, Any]:
        answered = (isinstance(content, str) and content.strip()) or calls
        if self.lost is None and answered:
            self.lost = {"content": content, "calls": list(calls)}
            content, calls = None, []
        return build.model_event(model, messages, content, calls, **more)


def _strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, and in any string that is itself JSON (attributes)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, str):
        yield value
        if value[:1] in "[{":
            try:
                parsed = json.loads(value)
            except ValueError:
                return
            yield from _strings(parsed)


def _source(path: Path) -> Any:
    """The source's JSON: the file, or every JSON member of an archive (Inspect's .eval)."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            return [json.loads(archive.read(n)) for n in archive.namelist() if n.endswith(".json")]
    return json.loads(path.read_text(encoding="utf-8"))


def _holds(source: Any, lost: dict[str, Any]) -> bool:
    """Whether the source holds the lost answer: its text, or each lost call's tool name."""
    texts = list(_strings(source))
    if isinstance(lost["content"], str) and lost["content"].strip():
        line = lost["content"].strip().splitlines()[0][:60]
        return any(line in t for t in texts)
    names = [c["name"] for c in lost["calls"]]
    return all(any(name == t for t in texts) for name in names)


@pytest.mark.parametrize("name", SOURCES)
def test_an_answer_the_source_holds_and_the_importer_loses_is_refused(
    name: str, samples: Path, corpus_dir: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = samples / name
    assert cli("-C", corpus_dir, "add", path, "--id", "whole").code == 0, "imports as it is"

    plant = DropFirstAnswer()
    for module in BUILDERS:
        monkeypatch.setattr(importlib.import_module(module), "model_event", plant)
    result = cli("-C", corpus_dir, "add", path, "--id", "lost")
    assert plant.lost is not None, "the file's model calls go through model_event"
    assert _holds(_source(path), plant.lost), plant.lost
    assert result.code == 2, result.out
    assert "holds no answer" in result.err and str(path) in result.err, result.err
    assert not (corpus_dir / "cases" / "lost").exists()

    plant.lost = None
    kept = cli("-C", corpus_dir, "add", path, "--id", "lost", "--allow-incomplete")
    assert kept.code == 0, kept.err
    expected = yaml.safe_load((corpus_dir / "cases/lost/expected.yaml").read_text())
    assert expected["status"] == "known_unknown"
    assert any("holds no answer" in p for p in expected["incomplete"])
