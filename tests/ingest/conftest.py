"""Shared helpers for importer tests: the real sample files, and loading through the registry."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from corpus_tool import ingest
from corpus_tool.ingest.imported import Imported
from corpus_tool.validate import completeness

REPO = Path(__file__).resolve().parents[2]


def samples_dir() -> Path:
    """`<repo>/../shared/samples` (CI clones the repo next to shared/).

    CORPUS_SHARED_SAMPLES overrides it, for a worktree that does not sit next to shared/.
    """
    override = os.environ.get("CORPUS_SHARED_SAMPLES")
    return Path(override) if override else REPO / ".." / "shared" / "samples"


@pytest.fixture
def samples() -> Path:
    where = samples_dir()
    if not where.is_dir():
        pytest.skip(f"sample traces not found at {where}")
    return where


def load(path: Path, name: str = "auto") -> list[Imported]:
    """Every run of a file, as `corpus add` reads it."""
    data, importer = ingest.parse(path.read_bytes(), path, name)
    return importer.load(data, path)


def calls(body: dict[str, Any]) -> list[tuple[str, dict[str, Any], Any]]:
    """(tool, arguments, result or error) of every tool call, in order."""
    return [
        (e["tool"], e["arguments"], e["error"] if "error" in e else e.get("result"))
        for e in body["events"]
        if e["type"] == "tool_call"
    ]


def problems(body: dict[str, Any]) -> list[str]:
    return [p.message for p in completeness.problems(body)]


@pytest.fixture
def corpus(corpus_dir: Path) -> Path:
    """An empty corpus made by `corpus init` (the suite's `corpus_dir`, by its short name)."""
    return corpus_dir


def json_file(tmp_path: Path, name: str, data: Any) -> Path:
    """`data` written as `tmp_path/name.json` (an export a test built)."""
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def added_trace(cli: Any, corpus_dir: Path, export: Path, case_id: str) -> dict[str, Any]:
    """`corpus add EXPORT --id CASE_ID` through the CLI (it must succeed): the trace.yaml."""
    result = cli("-C", corpus_dir, "add", export, "--id", case_id)
    assert result.code == 0, result.err
    text = (corpus_dir / f"cases/{case_id}/trace.yaml").read_text(encoding="utf-8")
    loaded: dict[str, Any] = yaml.safe_load(text)
    return loaded
