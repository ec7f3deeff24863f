"""The overhead live replay adds per model call, against the recorded mode's per-call cost.

A corpus of a few cases whose agent makes many model calls and no tool calls: recorded, each
answer comes from the trace in the worker; live, each request crosses the worker pipe to the
grading process, is answered there by a factory that answers at once (the scripted model's
decision, no network: the provider's own latency is not corpus-tool's), is booked (usage,
latency) and sent back. Each mode runs with two call counts; the difference over the difference
in calls is its cost per call, start-up excluded, and the live cost less the recorded cost is
the overhead (target: at most 2 ms per call).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import yaml

from bench.measure import ROOT, corpus_cli, interleaved, median, run, spread

EXAMPLE = ROOT / "examples" / "corpus" / "cases" / "refund-success"

AGENT = """
def run(case_input, rt):
    for i in range(int(case_input["user_message"])):
        rt.model([{"role": "user", "content": f"question {i}"}], model="bench-model")
    return {"status": "succeeded", "output": "done"}
"""
FACTORY = """
from corpus_tool import ModelResponse, Usage


def instant():
    def model(messages, **kwargs):
        return ModelResponse("answer", model="bench-model", usage=Usage(12, 3))
    return model
"""
CONFIG = """schema_version: 1
name: live-bench
agent: {entrypoint: "bench_agent:run"}
replay: {mode: strict, live_model: "bench_factory:instant"}
"""
CASES = 4


def _trace(case: str, calls: int) -> dict[str, Any]:
    events = [
        {
            "seq": i + 1,
            "type": "model_call",
            "model": "bench-model",
            "request": {"messages": [{"role": "user", "content": f"question {i}"}]},
            "response": {"content": "answer"},
            "timestamp": "2025-06-01T10:00:00.000Z",
        }
        for i in range(calls)
    ]
    doc = yaml.safe_load((EXAMPLE / "trace.yaml").read_text(encoding="utf-8"))
    doc["recorded"]["models"] = ["bench-model"]
    return {
        **doc,
        "id": case,
        "input": {"user_message": str(calls)},
        "events": events,
        "terminal": {"status": "succeeded", "output": "done", "seq": calls + 1},
    }


def _expected(case: str) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "id": case,
        "status": "active",
        "tier": "fast",
        "owner": "bench",
        "expect": {"terminal": {"status": "succeeded"}},
    }


def build(where: Path, calls: int) -> Path:
    """A corpus of CASES cases, each `calls` model calls; the agent and factory beside it."""
    shutil.rmtree(where, ignore_errors=True)
    (where / "waivers").mkdir(parents=True)
    (where / "corpus.yaml").write_text(CONFIG, encoding="utf-8")
    (where / "bench_agent.py").write_text(AGENT, encoding="utf-8")
    (where / "bench_factory.py").write_text(FACTORY, encoding="utf-8")
    for n in range(1, CASES + 1):
        case = f"calls-{n:02d}"
        folder = where / "cases" / case
        folder.mkdir(parents=True)
        for name, doc in (("trace", _trace(case, calls)), ("expected", _expected(case))):
            (folder / f"{name}.yaml").write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return where


def per_call_ms(work: Path, repeat: int, few: int, many: int, workers: int = 1) -> dict[str, Any]:
    """Per-call milliseconds of each mode with `workers` replay workers, and the samples."""
    corpora = {n: build(work / f"live-{n}", n) for n in (few, many)}
    steps = {
        f"{model}|{n}": (
            lambda model=model, c=corpus: run(
                corpus_cli("-C", str(c), "replay", "--model", model, "-n", str(workers)), c
            )
        )
        for model in ("recorded", "live")
        for n, corpus in corpora.items()
    }
    samples = interleaved(repeat, steps)
    calls = (many - few) * CASES
    cost = {
        model: (median(samples[f"{model}|{many}"]) - median(samples[f"{model}|{few}"]))
        / calls
        * 1000
        for model in ("recorded", "live")
    }
    return {
        "cost_ms": cost,
        "calls": calls,
        "wall_s": {name: spread(s) for name, s in samples.items()},
    }
