"""Agents that call the real `openai` or `anthropic` SDK, with no corpus-tool import, replayed
unchanged through the provider doubles (corpus_tool/replay/doubles): strict replay passes, and
each mutation fails with the divergence kind the same agent written on the Runtime gets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from corpus_tool.replay.doubles.agent import plain_agent
from corpus_tool.replay.doubles.server import Doubles
from tests.replay.provider_agents import (
    ANSWER,
    KINDS,
    MUTATIONS,
    USAGE,
    agent_source,
    incident,
    use_agent,
    weather_corpus,
)
from tests.replaying import replay_case

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")


def checked(cli: Any, root: Path) -> tuple[int, dict[str, Any]]:
    """`corpus check --format json` of the corpus: exit status and the one case's result."""
    done = cli("check", "--format", "json", cwd=root)
    assert done.code in (0, 1), done.err
    return done.code, json.loads(done.out)["cases"][0]


def kind_of(case: dict[str, Any]) -> str | None:
    return (case.get("divergence") or {}).get("kind")


@pytest.mark.parametrize("stream", [False, True], ids=["create", "stream"])
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_unchanged_sdk_agent_replays_its_incident_strictly(
    tmp_path: Path, cli: Any, provider: str, stream: bool
) -> None:
    root = weather_corpus(tmp_path / "corpus", cli, provider)
    use_agent(root, agent_source(provider, stream=stream))
    code, case = checked(cli, root)
    assert (code, case["verdict"], kind_of(case)) == (0, "passed", None), case
    assert "corpus_tool" not in agent_source(provider, stream=stream)
    tools = [e for e in case["trajectory"]["events"] if e["type"] == "tool_call"]
    assert [(e["tool"], e["arguments"]) for e in tools] == [("get_weather", {"city": "Paris"})]


@pytest.mark.parametrize("mutation", MUTATIONS)
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_mutated_sdk_agent_fails_with_the_runtime_paths_divergence_kind(
    tmp_path: Path, cli: Any, provider: str, mutation: str
) -> None:
    root = weather_corpus(tmp_path / "corpus", cli, provider)
    use_agent(root, agent_source("runtime", mutation, provider=provider), "runtime_agent")
    code, through_runtime = checked(cli, root)
    assert code == 1
    use_agent(root, agent_source(provider, mutation), "sdk_agent")
    code, through_sdk = checked(cli, root)
    assert code == 1
    assert kind_of(through_sdk) == kind_of(through_runtime) == KINDS[mutation]
    assert through_sdk["verdict"] == through_runtime["verdict"] == "failed"
    assert through_sdk["divergence"]["step"] == through_runtime["divergence"]["step"]


def test_openai_stream_accumulator_rebuilds_the_recorded_messages(tmp_path: Path, cli: Any) -> None:
    """`client.chat.completions.stream(...).get_final_completion()` over the replayed stream
    equals the recorded response: content, tool calls, finish reason, usage."""
    root = weather_corpus(tmp_path / "corpus", cli, "openai")
    recorded = [e for e in incident("openai")["events"] if e["type"] == "llm_request"]
    finals: list[Any] = []

    def run(case_input: dict[str, Any]) -> dict[str, Any]:
        client = openai.OpenAI(max_retries=0)
        messages: list[Any] = [
            {"role": "system", "content": recorded[0]["messages"][0]["content"]},
            {"role": "user", "content": case_input["user_message"]},
        ]
        for _ in range(3):
            with client.chat.completions.stream(
                model=recorded[0]["model"],
                messages=messages,
                tools=recorded[0]["tools"],
                temperature=0,
                stream_options={"include_usage": True},
            ) as stream:
                final = stream.get_final_completion()
            finals.append(final)
            message = final.choices[0].message
            if not message.tool_calls:
                return {"status": "succeeded", "output": message.content}
            messages.append(message.model_dump(exclude_none=True))
            for call in message.tool_calls:
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": call.id,
                        "content": json.dumps({"sky": "clear", "temp_c": 21}),
                    }
                )
        return {"status": "step_limit", "output": None}

    doubles = Doubles().start()
    try:
        with pytest.MonkeyPatch.context() as env:
            for key, value in doubles.env().items():
                env.setenv(key, value)
            replayed = replay_case(root / "cases" / "weather", plain_agent(run, doubles))
    finally:
        doubles.close()
    assert replayed.divergence is None
    assert len(finals) == 2
    for final, event, usage in zip(finals, recorded, USAGE, strict=True):
        choice = final.choices[0]
        calls = [
            {"id": c.id, "name": c.function.name, "arguments": json.loads(c.function.arguments)}
            for c in choice.message.tool_calls or []
        ]
        assert choice.message.content == event["response"]["content"]
        assert calls == event["response"]["toolCalls"]
        assert choice.finish_reason == event["response"]["finishReason"]
        assert final.usage.prompt_tokens == usage["input_tokens"]
        assert final.usage.completion_tokens == usage["output_tokens"]
        assert final.model == event["model"]
    assert finals[-1].choices[0].message.content == ANSWER


def test_anthropic_stream_accumulator_rebuilds_the_recorded_messages(
    tmp_path: Path, cli: Any
) -> None:
    """`client.messages.stream(...).get_final_message()` over the replayed events equals the
    recorded response: text, tool_use blocks, stop reason, usage."""
    root = weather_corpus(tmp_path / "corpus", cli, "anthropic")
    recorded = [e for e in incident("anthropic")["events"] if e["type"] == "llm_request"]
    tools = [
        {
            "name": t["function"]["name"],
            "description": t["function"]["description"],
            "input_schema": t["function"]["parameters"],
        }
        for t in recorded[0]["tools"]
    ]
    finals: list[Any] = []

    def run(case_input: dict[str, Any]) -> dict[str, Any]:
        client = anthropic.Anthropic(max_retries=0)
        messages: list[Any] = [{"role": "user", "content": case_input["user_message"]}]
        for _ in range(3):
            with client.messages.stream(
                model=recorded[0]["model"],
                max_tokens=512,
                system=recorded[0]["messages"][0]["content"],
                messages=messages,
                tools=tools,
            ) as stream:
                final = stream.get_final_message()
            finals.append(final)
            uses = [b for b in final.content if b.type == "tool_use"]
            if not uses:
                return {"status": "succeeded", "output": final.content[0].text}
            messages.append({"role": "assistant", "content": [b.model_dump() for b in uses]})
            messages.append(
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": b.id,
                            "content": json.dumps({"sky": "clear", "temp_c": 21}),
                        }
                        for b in uses
                    ],
                }
            )
        return {"status": "step_limit", "output": None}

    doubles = Doubles().start()
    try:
        with pytest.MonkeyPatch.context() as env:
            for key, value in doubles.env().items():
                env.setenv(key, value)
            replayed = replay_case(root / "cases" / "weather", plain_agent(run, doubles))
    finally:
        doubles.close()
    assert replayed.divergence is None
    assert len(finals) == 2
    for final, event, usage in zip(finals, recorded, USAGE, strict=True):
        text = "".join(b.text for b in final.content if b.type == "text") or None
        calls = [
            {"id": b.id, "name": b.name, "arguments": b.input}
            for b in final.content
            if b.type == "tool_use"
        ]
        assert text == event["response"]["content"]
        assert calls == event["response"]["toolCalls"]
        assert final.stop_reason == event["response"]["finishReason"]
        assert (final.usage.input_tokens, final.usage.output_tokens) == (
            usage["input_tokens"],
            usage["output_tokens"],
        )
        assert final.model == event["model"]


def test_a_divergence_answers_the_sdk_with_an_error_naming_it(tmp_path: Path, cli: Any) -> None:
    """The changed prompt reaches the agent as the SDK's BadRequestError, whose message names
    the divergence; the run still ends as the Runtime path ends it (the divergence kept)."""
    root = weather_corpus(tmp_path / "corpus", cli, "openai")
    seen: list[str] = []

    def run(case_input: dict[str, Any]) -> dict[str, Any]:
        client = openai.OpenAI(max_retries=0)
        try:
            client.chat.completions.create(
                model="gpt-4o-mini-2024-07-18",
                messages=[{"role": "user", "content": case_input["user_message"]}],
            )
        except openai.BadRequestError as err:
            seen.append(str(err))
        return {"status": "succeeded", "output": "swallowed"}

    doubles = Doubles().start()
    try:
        with pytest.MonkeyPatch.context() as env:
            for key, value in doubles.env().items():
                env.setenv(key, value)
            replayed = replay_case(root / "cases" / "weather", plain_agent(run, doubles))
    finally:
        doubles.close()
    assert len(seen) == 1 and "ModelRequest divergence at step 1" in seen[0]
    assert replayed.divergence is not None and replayed.divergence.kind == "ModelRequest"
    assert replayed.terminal.status == "unknown"


@pytest.mark.parametrize("stream", [False, True], ids=["create", "stream"])
def test_responses_api_agent_replays_the_chat_recording_and_a_changed_argument_diverges(
    tmp_path: Path, cli: Any, stream: bool
) -> None:
    """`client.responses.create` / `.stream(...).get_final_response()`: the same incident
    replays strictly (instructions as the system message, function_call items as tool calls),
    the SDK's final response holds the recorded tool call and text; an agent that changes the
    argument it echoes gets the Runtime path's ToolArguments."""
    root = weather_corpus(tmp_path / "corpus", cli, "openai")
    recorded = [e for e in incident("openai")["events"] if e["type"] == "llm_request"]
    tools = [{"type": "function", **t["function"]} for t in recorded[0]["tools"]]
    finals: list[Any] = []

    def agent(mutate: bool) -> Any:
        def run(case_input: dict[str, Any]) -> dict[str, Any]:
            client = openai.OpenAI(max_retries=0)
            items: list[Any] = [{"role": "user", "content": case_input["user_message"]}]
            for _ in range(3):
                asked = {
                    "model": recorded[0]["model"],
                    "instructions": recorded[0]["messages"][0]["content"],
                    "input": items,
                    "tools": tools,
                    "temperature": 0,
                }
                if stream:
                    with client.responses.stream(**asked) as events:
                        final = events.get_final_response()
                else:
                    final = client.responses.create(**asked)
                finals.append(final)
                calls = [o for o in final.output if o.type == "function_call"]
                if not calls:
                    return {"status": "succeeded", "output": final.output_text}
                for call in calls:
                    args = json.loads(call.arguments)
                    if mutate:
                        args["city"] = args["city"].upper()
                    items.append(
                        {
                            "type": "function_call",
                            "call_id": call.call_id,
                            "name": call.name,
                            "arguments": json.dumps(args),
                        }
                    )
                    items.append(
                        {
                            "type": "function_call_output",
                            "call_id": call.call_id,
                            "output": json.dumps({"sky": "clear", "temp_c": 21}),
                        }
                    )
            return {"status": "step_limit", "output": None}

        return run

    doubles = Doubles().start()
    try:
        with pytest.MonkeyPatch.context() as env:
            for key, value in doubles.env().items():
                env.setenv(key, value)
            case = root / "cases" / "weather"
            passed = replay_case(case, plain_agent(agent(False), doubles))
            first = list(finals)
            changed = replay_case(case, plain_agent(agent(True), doubles))
    finally:
        doubles.close()
    assert passed.divergence is None and passed.terminal.output == ANSWER
    call = next(o for o in first[0].output if o.type == "function_call")
    recorded_call = recorded[0]["response"]["toolCalls"][0]
    assert (call.call_id, call.name, json.loads(call.arguments)) == (
        recorded_call["id"],
        recorded_call["name"],
        recorded_call["arguments"],
    )
    assert first[1].output_text == ANSWER
    assert (first[1].usage.input_tokens, first[1].usage.output_tokens) == (
        USAGE[1]["input_tokens"],
        USAGE[1]["output_tokens"],
    )
    assert changed.divergence is not None and changed.divergence.kind == "ToolArguments"
