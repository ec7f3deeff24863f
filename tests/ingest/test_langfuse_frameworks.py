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


# Agno 1.x with openinference-instrumentation-agno 0.1.4 and the Langfuse SDK 3.0 exporting to
# Langfuse, as langfuse/langfuse worker/src/__tests__/chatml/framework-traces/
# agno-2025-06-11.trace.json (commit 1f4beec9db59dc9242274e2c244558140ae76e98) holds it: each
# model call is an `OpenAIChat.invoke` GENERATION (OpenInference LLM attributes, `output.value`
# and `output` the Chat Completions response as JSON text, no `llm.output_messages`) with a
# duplicate `chat <model>` GENERATION under it from the Langfuse SDK whose `input` is one
# flattened string (`developer: ...\nuser: ...`) and whose `output` is the string "None" for a
# tool-calling answer; tools are OpenInference TOOL spans.
AGNO_SYSTEM = (
    "<additional_information>\n- Use markdown to format your answers.\n</additional_information>"
)
AGNO_ASK = "What is currently trending on Twitter?"
AGNO_ANSWER = "To find out what's currently trending, visit Twitter Explore."
AGNO_RESULT = json.dumps([{"title": "Twitter Explore", "href": "https://twitter.com/explore"}])
AGNO_CALL = {
    "id": "call_VybxG748CQId8Xxo6wb2pWy1", "type": "function",
    "function": {"name": "duckduckgo_search",
                 "arguments": json.dumps({"query": "currently trending on Twitter"})},
}  # fmt: skip


def _completion(message: dict[str, Any]) -> str:
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    return json.dumps({
        "id": "chatcmpl-BhGJAW79iSsHO7ES5wgoTga4hQFyn", "object": "chat.completion",
        "model": "gpt-4o-mini-2024-07-18",
        "choices": [{"finish_reason": finish, "index": 0, "logprobs": None, "message": message}],
    })  # fmt: skip


def _agno_messages(turn: int) -> dict[str, Any]:
    prefix = "llm.input_messages"
    out = {
        f"{prefix}.0.message.role": "system", f"{prefix}.0.message.content": AGNO_SYSTEM,
        f"{prefix}.1.message.role": "user", f"{prefix}.1.message.content": AGNO_ASK,
    }  # fmt: skip
    if turn == 2:
        call = f"{prefix}.2.message.tool_calls.0.tool_call"
        out.update({
            f"{prefix}.2.message.role": "assistant", f"{call}.id": AGNO_CALL["id"],
            f"{call}.function.name": "duckduckgo_search",
            f"{call}.function.arguments": AGNO_CALL["function"]["arguments"],
            f"{prefix}.3.message.role": "tool", f"{prefix}.3.message.content": AGNO_RESULT,
            f"{prefix}.3.message.tool_call_id": AGNO_CALL["id"],
        })  # fmt: skip
    return out


def _agno_invoke(id_: str, turn: int, start: str, end: str) -> dict[str, Any]:
    message = (
        {"content": None, "role": "assistant", "tool_calls": [AGNO_CALL]}
        if turn == 1
        else {"content": AGNO_ANSWER, "role": "assistant", "tool_calls": None}
    )
    output = _completion(message)
    asked = json.dumps({"messages": [f"role='system' content='{AGNO_SYSTEM}'",
                                     f"role='user' content='{AGNO_ASK}'"]})  # fmt: skip
    return _observation(
        id_, "1cffdfa6fe3412e6", "GENERATION", "OpenAIChat.invoke", start=start, end=end,
        input=asked, output=output, model="gpt-4o-mini", modelParameters={},
        scope="openinference.instrumentation.agno",
        attributes={"input.mime_type": "application/json", "input.value": asked,
                    **_agno_messages(turn), "llm.model_name": "gpt-4o-mini",
                    "llm.provider": "OpenAI", "output.mime_type": "application/json",
                    "output.value": output, "openinference.span.kind": "LLM"},
    )  # fmt: skip


def _agno() -> dict[str, Any]:
    flat = f"developer: {AGNO_SYSTEM}\nuser: {AGNO_ASK}"
    arguments = AGNO_CALL["function"]["arguments"]
    observations = [
        _observation(
            "1cffdfa6fe3412e6", None, "SPAN", "Agent.run",
            scope="openinference.instrumentation.agno",
            start="2025-06-11T14:01:32.598Z", end="2025-06-11T14:01:39.400Z",
            attributes={"input.value": json.dumps({"message": AGNO_ASK}),
                        "output.value": json.dumps({"content": AGNO_ANSWER}),
                        "openinference.span.kind": "AGENT", "agno.agent": "Agent"},
        ),
        _agno_invoke("ca136de468e156c9", 1, "2025-06-11T14:01:32.600Z", "2025-06-11T14:01:33.560Z"),
        _observation(
            "1f883bb9668167c0", "ca136de468e156c9", "GENERATION", "chat gpt-4o-mini",
            start="2025-06-11T14:01:32.606Z", end="2025-06-11T14:01:33.559Z",
            input=flat, output="None", model="gpt-4o-mini",
        ),
        _observation(
            "7d2e0a6c1b9f4e33", "1cffdfa6fe3412e6", "SPAN", "duckduckgo_search",
            start="2025-06-11T14:01:33.600Z", end="2025-06-11T14:01:34.320Z",
            input=arguments, output=AGNO_RESULT, scope="openinference.instrumentation.agno",
            attributes={"tool.name": "duckduckgo_search", "input.value": arguments,
                        "output.value": AGNO_RESULT, "openinference.span.kind": "TOOL"},
        ),
        _agno_invoke("5b1e2f0a9c8d7e61", 2, "2025-06-11T14:01:34.400Z", "2025-06-11T14:01:39.300Z"),
        _observation(
            "2a9d8c7b6e5f4a30", "5b1e2f0a9c8d7e61", "GENERATION", "chat gpt-4o-mini",
            start="2025-06-11T14:01:34.410Z", end="2025-06-11T14:01:39.290Z",
            input=f"{flat}\nassistant: None\ntool: {AGNO_RESULT}", output=AGNO_ANSWER,
            model="gpt-4o-mini",
        ),
    ]  # fmt: skip
    trace = {
        "id": "080130871f53145aecf7c29d5dfb6e4c", "name": "Agent.run",
        "timestamp": "2025-06-11T14:01:32.598Z", "version": None,
        "sessionId": "35cc6c90-b657-4819-b66c-c931c03ad569",
        "input": json.dumps({"message": AGNO_ASK}),
        "output": json.dumps({"content": AGNO_ANSWER}),
    }  # fmt: skip
    return {"trace": trace, "observations": observations}


def test_langfuse_agno_reads_the_invoke_spans_not_the_flattened_duplicates(
    corpus_dir: Path, cli: Cli, tmp_path: Path
) -> None:
    doc = _agno()
    invokes = [o for o in doc["observations"] if o["name"] == "OpenAIChat.invoke"]
    answers = [json.loads(o["output"])["choices"][0]["message"] for o in invokes]
    asked = [c for a in answers for c in a.get("tool_calls") or []]
    tools = [o for o in doc["observations"] if 'openinference.span.kind": "TOOL' in o["metadata"]]
    trace = _add(corpus_dir, cli, tmp_path, doc, "agno")
    models = [e for e in trace["events"] if e["type"] == "model_call"]
    calls = [e for e in trace["events"] if e["type"] == "tool_call"]
    assert len(models) == len(invokes) and len(calls) == len(tools) == len(asked)
    assert [m["response"].get("content") for m in models] == [a["content"] for a in answers]
    assert [c["name"] for c in models[0]["response"]["tool_calls"]] == [
        c["function"]["name"] for c in asked
    ]
    assert [(c["tool"], c["call_id"], c["arguments"], c["result"]) for c in calls] == [
        (c["function"]["name"], c["id"], json.loads(c["function"]["arguments"]),
         json.loads(AGNO_RESULT))
        for c in asked
    ]  # fmt: skip
    system = models[0]["request"]["messages"][0]
    assert (system["role"], system["content"]) == ("system", AGNO_SYSTEM)
