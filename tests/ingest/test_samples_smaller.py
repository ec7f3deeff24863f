"""Smaller fidelity fixes on the shared samples: what each source holds, read from the file
here, is what the case holds."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
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
    assert usages == held  # each model call's own usage, one for one, in the file's order


def _case_ids(corpus: Path) -> set[str]:
    return {p.name for p in (corpus / "cases").iterdir() if p.is_dir()}


def test_inspect_logs_of_two_runs_give_distinct_case_ids(
    samples: Path, corpus_dir: Path, cli: Cli, tmp_path: Path
) -> None:
    source = samples / "inspect_ai/2025-05-12T20-28-26-04-00_security-guide.json"
    first = json.loads(source.read_text(encoding="utf-8"))
    second = json.loads(json.dumps(first))
    second["eval"]["run_id"] = "Q7pLm2Xz9aBcDeFgHiJkLm"  # the same task, run again
    logs = []
    for n, doc in enumerate((first, second)):
        logs.append(tmp_path / f"run{n}.json")
        logs[-1].write_text(json.dumps(doc), encoding="utf-8")
    for log in logs:
        result = cli("-C", corpus_dir, "add", log, "--all")
        assert result.code == 0, result.err
    samples_per_log = len(first["samples"])
    ids = _case_ids(corpus_dir)
    assert len(ids) == 2 * samples_per_log
    for doc in (first, second):
        run = doc["eval"]["run_id"][:8].lower()
        assert sum(run in case for case in ids) == samples_per_log


def test_long_ids_cut_at_80_characters_stay_distinct(
    samples: Path, corpus_dir: Path, cli: Cli
) -> None:
    source = samples / "tau_bench/gpt-4o-airline.subset2.json"
    runs = json.loads(source.read_text(encoding="utf-8"))
    prefix = "airline-regression-suite-for-the-refund-and-rebooking-flows-2025-q3-nightly-"
    assert len(prefix) + len("task-") >= 80, "the labels differ only past 80 characters"
    result = cli("-C", corpus_dir, "add", source, "--all", "--id", prefix.rstrip("-"))
    assert result.code == 0, result.err
    ids = _case_ids(corpus_dir)
    assert len(ids) == len(runs)
    assert all(len(i) <= 80 and i.startswith(prefix[:60]) for i in ids)
