"""Langfuse exports of agents built with other frameworks: the export is Langfuse's, the
observations are the framework's.

No such export is among the shared samples, so each is written here by hand in the exact shape
of Langfuse's own fixtures of that framework (cited per fixture; no file is copied): what the
case must hold is read from the fixture's JSON directly, never through the importer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import Cli


def _observation(
    id_: str, parent: str | None, kind: str, name: str, **fields: Any
) -> dict[str, Any]:
    attributes = fields.pop("attributes", {})
    scope = fields.pop("scope", "langfuse-sdk")
    return {
        "id": id_, "traceId": "25f4bdeebaab60e6e1bee7e8469554bc",
        "startTime": fields.pop("start", "2025-06-06T14:40:28.562Z"),
        "endTime": fields.pop("end", "2025-06-06T14:40:33.356Z"),
        "projectId": "cloramnkj0002jz088vzn1ja4", "parentObservationId": parent, "type": kind,
        "environment": "default", "name": name, "level": "DEFAULT", "statusMessage": None,
        "version": None, "input": None, "output": None, "model": None,
        "modelParameters": None, "usageDetails": {}, "costDetails": {}, "toolCalls": [],
        "metadata": json.dumps({"attributes": attributes,
                                "scope": {"name": scope, "version": "0.2.15", "attributes": {}}}),
        **fields,
    }  # fmt: skip


# pydantic-ai 0.2.15 through Langfuse's OTel endpoint, as langfuse/langfuse
# worker/src/__tests__/chatml/framework-traces/pydantic-ai-2025-06-06.trace.json
# (commit 092cb2cbd26dc642773f336c9c32dbc75e92976f) holds it: the generation's `input` is JSON
# text of gen_ai.*.message events, its `output` JSON text of one `gen_ai.choice` event
# `{index, message: {role, content}}`, `metadata` JSON text; the trace's input and output are
# JSON-quoted strings.
ANSWER = "Langfuse is a tool for observability and monitoring of LLM applications."
SYSTEM = "You are a helpful assistant that answers questions clearly and concisely."


def _pydantic_ai(as_text: bool) -> dict[str, Any]:
    def text(value: Any) -> Any:
        return json.dumps(value) if as_text else value

    asked = [
        {"content": SYSTEM, "role": "system", "gen_ai.system": "openai",
         "gen_ai.message.index": 0, "event.name": "gen_ai.system.message"},
        {"content": "What is Langfuse?", "role": "user", "gen_ai.system": "openai",
         "gen_ai.message.index": 0, "event.name": "gen_ai.user.message"},
    ]  # fmt: skip
    choice = {"index": 0, "message": {"role": "assistant", "content": ANSWER},
              "gen_ai.system": "openai", "event.name": "gen_ai.choice"}  # fmt: skip
    generation = _observation(
        "5cb389a3bdd21a6e", "0a4fac2553f22f2e", "GENERATION", "chat gpt-4o",
        input=text(asked), output=text(choice), model="gpt-4o", modelParameters={},
        usageDetails={"input": 31, "output": 96, "total": 127}, scope="pydantic-ai",
        attributes={"gen_ai.operation.name": "chat", "gen_ai.system": "openai",
                    "gen_ai.request.model": "gpt-4o", "gen_ai.response.model": "gpt-4o-2024-08-06",
                    "gen_ai.usage.input_tokens": "31", "gen_ai.usage.output_tokens": "96"},
    )  # fmt: skip
    run = _observation(
        "0a4fac2553f22f2e",
        "538fed87d11686d3",
        "SPAN",
        "qa_agent run",
        scope="pydantic-ai",
        attributes={"model_name": "gpt-4o", "agent_name": "qa_agent", "final_result": ANSWER},
    )
    root = _observation("538fed87d11686d3", None, "SPAN", "pydantic-ai-qa-trace")
    trace = {
        "id": "25f4bdeebaab60e6e1bee7e8469554bc", "name": "pydantic-ai-qa-trace",
        "timestamp": "2025-06-06T14:40:28.562Z", "version": "1.0.0", "sessionId": "session_abc",
        "input": json.dumps("What is Langfuse?"), "output": json.dumps(ANSWER),
    }  # fmt: skip
    return {"trace": trace, "observations": [generation, run, root]}


def _add(corpus: Path, cli: Cli, tmp_path: Path, doc: dict[str, Any], case: str) -> dict[str, Any]:
    export = tmp_path / f"{case}.json"
    export.write_text(json.dumps(doc), encoding="utf-8")
    result = cli("-C", corpus, "add", export, "--id", case)
    assert result.code == 0, result.err
    return yaml.safe_load((corpus / "cases" / case / "trace.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("as_text", [True, False], ids=["json-text", "objects"])
def test_langfuse_pydantic_ai_answer_and_output_are_the_generations(
    corpus_dir: Path, cli: Cli, tmp_path: Path, as_text: bool
) -> None:
    doc = _pydantic_ai(as_text)
    generation = doc["observations"][0]
    output = json.loads(generation["output"]) if as_text else generation["output"]
    asked = json.loads(generation["input"]) if as_text else generation["input"]
    trace = _add(corpus_dir, cli, tmp_path, doc, "pydantic-ai")
    (model_call,) = [e for e in trace["events"] if e["type"] == "model_call"]
    assert model_call["response"]["content"] == output["message"]["content"]
    assert [(m["role"], m["content"]) for m in model_call["request"]["messages"]] == [
        (m["role"], m["content"]) for m in asked
    ]
    assert trace["terminal"]["output"] == json.loads(doc["trace"]["output"])
    assert trace["input"]["user_message"] == json.loads(doc["trace"]["input"])
