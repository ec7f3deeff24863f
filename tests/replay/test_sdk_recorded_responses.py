"""The whole loop of tests/replay/test_sdk_recorded.py for an agent written with the real
`openai` SDK's Responses API (`client.responses.create`, then `client.responses.stream`) and
no corpus-tool import: `corpus record` it against the scripted provider
(tests/replay/sdk_upstream.py), `corpus add` the incident, replay the same agent unchanged
(strict: passes), and each mutation fails with the divergence kind and step the Runtime agent
with the same mutation gets on the same recorded case."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.replay import sdk_upstream
from tests.replay.provider_agents import MUTATIONS, QUESTION, RESULT, SYSTEM, TOOLS, use_agent
from tests.replay.test_sdk_recorded import ALIAS, checked, divergence, record_and_add, source

pytest.importorskip("openai", reason="the agent is written with the real openai SDK")

RESPONSES_AGENT = """
import json
from openai import OpenAI

SYSTEM = {system!r}
TOOLS = [{{"type": "function", **t["function"]}} for t in {tools!r}]
MUTATION = {mutation!r}
STREAM = {stream!r}


def get_weather(city):
    return {result!r} if city == "Paris" else {{"sky": "unknown"}}


def ask(client, items, system):
    asked = dict(model={model!r}, instructions=system, input=items, tools=TOOLS, temperature=0)
    if not STREAM:
        return client.responses.create(**asked)
    with client.responses.stream(**asked) as s:
        return s.get_final_response()


CLIENTS = []  # one client for the process, built at the first case, as agents keep theirs


def run(case_input):
    CLIENTS[:] = CLIENTS or [OpenAI(max_retries=0)]
    client = CLIENTS[0]
    system = SYSTEM + (" Be brief." if MUTATION == "prompt" else "")
    items = [{{"role": "user", "content": case_input["user_message"]}}]
    for _ in range(4):
        reply = ask(client, items, system)
        calls = [o for o in reply.output if o.type == "function_call"]
        if not calls:
            return {{"status": "succeeded", "output": reply.output_text}}
        if MUTATION == "skip":
            items.append({{"role": "user", "content": "Never mind the tool."}})
            continue
        outputs = []
        for call in calls:
            arguments = json.loads(call.arguments)
            if MUTATION == "argument":
                arguments["city"] = arguments["city"].upper()
                items.append({{"type": "function_call", "call_id": call.call_id,
                              "name": call.name, "arguments": json.dumps(arguments)}})
            else:
                items.append(call)  # the SDK's own output item, echoed as agents do
            outputs.append({{"type": "function_call_output", "call_id": call.call_id,
                            "output": json.dumps(get_weather(**arguments))}})
        items.extend(outputs)
    return {{"status": "step_limit", "output": None}}
"""


def responses_source(mutation: str = "", stream: bool = False) -> str:
    """The Responses agent's module, asking for the model by its alias."""
    return RESPONSES_AGENT.format(
        system=SYSTEM,
        tools=TOOLS,
        mutation=mutation,
        stream=stream,
        result=RESULT,
        model=ALIAS["openai"],
    )


def recorded_corpus(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch, stream: bool
) -> tuple[Path, dict[str, Any], list[dict[str, Any]]]:
    """A corpus whose one case, `recorded`, is the unchanged agent's run as `corpus record`
    wrote it against the provider; the incident; what the provider was asked."""
    root = tmp_path / "corpus"
    assert cli("init", root).code == 0
    (root / "weather_agent.py").write_text(responses_source(stream=stream), encoding="utf-8")
    done, doc, asked = record_and_add(tmp_path, cli, monkeypatch, root)
    assert "recorded 2 model call(s) and 1 tool call(s)" in done.err
    return root, doc, asked


@pytest.mark.parametrize("stream", [False, True], ids=["create", "stream"])
def test_recorded_responses_agent_is_a_native_incident_in_chat_terms(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch, stream: bool
) -> None:
    """The incident holds what a Chat Completions recording holds: instructions as the system
    message, the function call (by its call_id, arguments parsed), the tool result from the
    next request's function_call_output, the dated model and the usage the API reported."""
    _, doc, asked = recorded_corpus(tmp_path, cli, monkeypatch, stream)
    assert [b["input"][0] for b in asked] == [{"role": "user", "content": QUESTION}] * 2
    assert all(bool(b.get("stream")) == stream and b["model"] == "gpt-4o-mini" for b in asked)
    first, tool, second, final = doc["events"]
    call = {"id": "call_Rz81Kp1", "name": "get_weather", "arguments": {"city": "Paris"}}
    asked_first = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTION}]
    assert first["type"] == "llm_request" and first["model"] == "gpt-4o-mini"
    assert first["messages"] == asked_first
    assert first["tools"] == TOOLS and first["temperature"] == 0
    assert first["response"] == {
        "content": None,
        "toolCalls": [call],
        "model": "gpt-4o-mini-2024-07-18",
    }
    assert first["usage"]["input_tokens"] == 61 and first["usage"]["output_tokens"] == 17
    assert "stream" not in first and "input" not in first and "instructions" not in first
    assert {k: tool[k] for k in ("type", "tool", "callId", "input", "result")} == {
        "type": "tool_call",
        "tool": "get_weather",
        "callId": "call_Rz81Kp1",
        "input": {"city": "Paris"},
        "result": RESULT,
    }
    assert second["messages"] == [
        *asked_first,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_Rz81Kp1", "content": json.dumps(RESULT)},
    ]
    assert second["response"]["content"] == sdk_upstream.ANSWER
    assert second["usage"]["total_tokens"] == 121
    assert final == {
        "seq": 4,
        "type": "final",
        "status": "succeeded",
        "output": sdk_upstream.ANSWER,
    }


@pytest.mark.parametrize("stream", [False, True], ids=["create", "stream"])
def test_recorded_responses_agent_replays_unchanged_and_each_mutation_fails_as_on_the_runtime(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch, stream: bool
) -> None:
    root, _, _ = recorded_corpus(tmp_path, cli, monkeypatch, stream)
    agent = responses_source(stream=stream)
    assert "corpus_tool" not in agent
    use_agent(root, agent, "weather_agent")
    code, case = checked(cli, root)
    assert (code, case["verdict"], divergence(case)) == (0, "passed", (None, None)), case

    kinds = set()
    for mutation in MUTATIONS:
        use_agent(root, source("runtime", "openai", mutation), f"runtime_{mutation}")
        code, through_runtime = checked(cli, root)
        assert code == 1 and through_runtime["verdict"] == "failed", through_runtime
        kind, step = divergence(through_runtime)
        assert kind is not None, through_runtime
        kinds.add(kind)
        use_agent(root, responses_source(mutation, stream), f"sdk_{mutation}")
        code, through_sdk = checked(cli, root)
        assert (code, through_sdk["verdict"]) == (1, "failed"), through_sdk
        assert divergence(through_sdk) == (kind, step), (mutation, through_sdk, through_runtime)
    assert len(kinds) == len(MUTATIONS)  # three mutations, three different divergences
