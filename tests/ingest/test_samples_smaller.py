"""Smaller fidelity fixes on the shared samples: what each source holds, read from the file
here, is what the case holds."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.ingest.conftest import load


def _models(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in body["events"] if e["type"] == "model_call"]


def test_inspect_model_events_keep_the_tools_they_offered(samples: Path) -> None:
    source = samples / "inspect_ai/log_message_deduplication.eval"
    with zipfile.ZipFile(source) as archive:
        sample = json.loads(archive.read("samples/0_epoch_1.json"))
    offered = [
        [t["name"] for t in e.get("tools") or []] for e in sample["events"] if e["event"] == "model"
    ]
    assert any(offered)
    (run,) = load(source)
    got = [[t["name"] for t in m["request"].get("tools") or []] for m in _models(run.body)]
    assert got == offered
    description = _models(run.body)[0]["request"]["tools"][1]["description"]
    assert not description.startswith("attachment://"), "attachments are resolved"


@pytest.mark.parametrize(
    "name",
    [
        "langsmith-sdk_langsmith_js_wrap_openai_default.json",
        "langsmith-sdk_langsmith_py_wrap_openai_stream.json",
        "langsmith-sdk_langsmith_py_wrap_openai_reasoning.json",
    ],
)
def test_langsmith_llm_runs_keep_usage_metadata(samples: Path, name: str) -> None:
    source = samples / "langsmith" / name
    text = source.read_text(encoding="utf-8")
    held: list[dict[str, Any]] = []

    def collect(value: Any) -> None:
        if isinstance(value, dict):
            if isinstance(value.get("usage_metadata"), dict):
                held.append(value["usage_metadata"])
            for item in value.values():
                collect(item)
        elif isinstance(value, list):
            for item in value:
                collect(item)

    collect(json.loads(text))
    assert held, "the sample records usage_metadata"
    runs = load(source)
    usages = [m.get("usage") for r in runs for m in _models(r.body)]
    assert usages and all(u in held for u in usages), usages
