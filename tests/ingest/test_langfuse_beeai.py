"""A BeeAI agent exported through Langfuse: emitter events back to model calls and tool runs.

The observations below are written here (no third-party file is copied) in the shape of
Langfuse's own BeeAI framework trace (langfuse/langfuse,
packages/shared/scripts/seeder/utils/framework-traces/beeai-2025-08-01.json at
2eca294a673a1e5e5d13bfde2860b29265bc5722; the same run as
worker/src/__tests__/chatml/framework-traces/beeai-2025-08-01.trace.json at
dc4c167fbc06cbe2bcbb1a05a9726accfeff3390): openinference.instrumentation.beeai 0.1.33 writes
one span per emitter event, named `<target>-<n>`, with `target`/`name` attributes:
`backend.openai.chat.start` (GENERATION, `input.value` + `llm.input_messages.*`),
`backend.openai.chat.new_token`, `.success` (the answer one token per
`llm.output_messages.N.message.content`, `llm.model_name`, `llm.invocation_parameters`),
`.finish`; `tool.search.wikipedia.start` (TOOL, `tool.parameters`) under the
`agent.react.update` span naming the tool (`tool.name`), `.success` (`output.value`), `.finish`;
`iteration-N` CHAIN spans. The run: a ReAct agent asked about Barcelona makes 3 model calls and
runs 2 tools (Wikipedia, OpenMeteoTool).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import Cli
from tests.ingest.conftest import added_trace, json_file

TRACE = "096fc09a30ab90d2431778f9ee2b3936"
SCOPE = {"name": "openinference.instrumentation.beeai", "version": "0.1.33", "attributes": {}}
QUESTION = "I'm planning a trip to Barcelona, Spain. What is the weather like there?"
SYSTEM = "# Available functions\nFunction Name: Wikipedia\nFunction Name: OpenMeteoTool\n"
PARAMS = {"max_tokens": None, "temperature": 0.7, "stream": None}
TURNS = [
    "Thought: I will research Barcelona first.\nFunction Name: Wikipedia\n"
    'Function Input: {"query": "Tourism in Barcelona"}\n',
    "Thought: Now the weather.\nFunction Name: OpenMeteoTool\n"
    'Function Input: {"country": "Spain", "location_name": "Barcelona"}\n',
    "Barcelona is known for Gaudí. It is 29°C with no rain.",
]
WIKI = [{"title": "Barcelona", "url": "https://en.wikipedia.org/wiki/Barcelona",
         "description": "Barcelona is a city on the northeastern coast of Spain."}]  # fmt: skip
METEO = {"latitude": 41.4375, "current": {"temperature_2m": 29.0, "rain": 0.0}}


def _obs(
    oid: str,
    parent: str | None,
    name: str,
    second: int,
    kind: str,
    obs_type: str = "SPAN",
    **attrs: Any,
) -> dict[str, Any]:
    target = name.rsplit("-", 1)[0]
    return {
        "id": oid, "traceId": TRACE, "projectId": "cloramnkj0002jz088vzn1ja4", "type": obs_type,
        "environment": "default", "parentObservationId": parent,
        "startTime": f"2025-08-01T13:56:{second:02d}.100Z",
        "endTime": f"2025-08-01T13:56:{second:02d}.900Z",
        "name": name,
        "metadata": {
            "attributes": {"target": target, "name": target.rsplit(".", 1)[-1],
                           "traceId": "0cff2691-3a45-4988-a243-8cb8c508aa25", **attrs,
                           "openinference.span.kind": kind},
            "resourceAttributes": {"service.name": "unknown_service"},
            "scope": SCOPE,
        },
        "level": "DEFAULT", "statusMessage": None, "model": None,
        "input": None, "output": None,
    }  # fmt: skip


def _tokens(text: str) -> list[str]:
    words = text.split(" ")
    return [w if i == 0 else f" {w}" for i, w in enumerate(words)]


def _model_call(
    n: int, parent: str, second: int, history: list[dict[str, Any]], answer: str
) -> list[dict[str, Any]]:
    flat = {}
    for i, m in enumerate(history):
        flat[f"llm.input_messages.{i}.message.role"] = m["role"]
        flat[f"llm.input_messages.{i}.message.content"] = m["content"]
    start = _obs(
        f"b{n}00000000000001",
        parent,
        f"backend.openai.chat.start-{n}",
        second,
        "LLM",
        "GENERATION",
        **{"input.mime_type": "application/json", "input.value": history, **flat},
    )
    start["input"] = history
    tokens = _tokens(answer)
    token = _obs(
        f"b{n}00000000000002",
        parent,
        f"backend.openai.chat.new_token-{n}",
        second,
        "LLM",
        "GENERATION",
        **{
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.content": tokens[-1],
        },
    )
    output = {}
    for i, t in enumerate(tokens):
        output[f"llm.output_messages.{i}.message.role"] = "assistant"
        output[f"llm.output_messages.{i}.message.content"] = t
    success = _obs(
        f"b{n}00000000000003",
        parent,
        f"backend.openai.chat.success-{n}",
        second + 1,
        "LLM",
        "GENERATION",
        **{
            **output,
            "llm.provider": "openai",
            "llm.model_name": "gpt-4o-mini",
            "llm.invocation_parameters": PARAMS,
        },
    )
    finish = _obs(
        f"b{n}00000000000004",
        parent,
        f"backend.openai.chat.finish-{n}",
        second + 1,
        "LLM",
        "GENERATION",
        **{
            "llm.provider": "openai",
            "llm.model_name": "gpt-4o-mini",
            "llm.invocation_parameters": PARAMS,
        },
    )
    for generation in (start, token, success, finish):
        generation["model"] = "gpt-4o-mini"
    return [start, token, success, finish]


def _tool_run(
    n: int, path: str, tool: str, second: int, params: dict[str, Any], output: Any
) -> list[dict[str, Any]]:
    update = _obs(
        f"d{n}00000000000001",
        "a000000000000001",
        f"agent.react.update-{n}",
        second,
        "AGENT",
        **{"tool.name": tool, "tool.parameters": params},
    )
    start = _obs(
        f"e{n}00000000000001",
        update["id"],
        f"{path}.start-{n}",
        second,
        "TOOL",
        **{"tool.parameters": params},
    )
    success = _obs(
        f"e{n}00000000000002",
        update["id"],
        f"{path}.success-{n}",
        second + 1,
        "TOOL",
        **{"output.mime_type": "application/json", "output.value": output},
    )
    success["output"] = output
    finish = _obs(f"e{n}00000000000003", update["id"], f"{path}.finish-{n}", second + 1, "TOOL")
    return [update, start, success, finish]


def _history(upto: int) -> list[dict[str, Any]]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTION},
            *({"role": "assistant", "content": t} for t in TURNS[:upto])]  # fmt: skip


ROOT = _obs("a000000000000001", None, "ReActAgent", 0, "AGENT",
            **{"input.value": QUESTION, "output.value": TURNS[-1]})  # fmt: skip
OBSERVATIONS = [
    ROOT,
    *_model_call(1, "a000000000000001", 1, _history(0), TURNS[0]),
    *_tool_run(12, "tool.search.wikipedia", "Wikipedia", 3,
               {"query": "Tourism in Barcelona", "full_text": False}, WIKI),
    *_model_call(2, "a000000000000001", 5, _history(1), TURNS[1]),
    *_tool_run(17, "tool.weather.openmeteo", "OpenMeteoTool", 7,
               {"location_name": "Barcelona", "country": "Spain"}, METEO),
    *_model_call(3, "a000000000000001", 9, _history(2), TURNS[2]),
]  # fmt: skip
EXPORT = {
    "trace": {"id": TRACE, "name": "beeai-framework-main",
              "timestamp": "2025-08-01T13:56:00.000Z",
              "input": json.dumps(QUESTION), "output": json.dumps(TURNS[-1])},
    "observations": OBSERVATIONS,
}  # fmt: skip


def _target(obs: dict[str, Any]) -> str:
    return str(obs["metadata"]["attributes"]["target"])


def _tool_events(event: str) -> list[dict[str, Any]]:
    return [
        o for o in OBSERVATIONS if _target(o).startswith("tool.") and _target(o).endswith(event)
    ]


def test_beeai_events_become_its_model_calls_and_tool_runs(
    corpus_dir: Path, cli: Cli, tmp_path: Path
) -> None:
    trace = added_trace(cli, corpus_dir, json_file(tmp_path, "beeai", EXPORT), "beeai")
    models = [e for e in trace["events"] if e["type"] == "model_call"]
    tools = [e for e in trace["events"] if e["type"] == "tool_call"]
    starts = [o for o in OBSERVATIONS if _target(o) == "backend.openai.chat.start"]
    successes = [o for o in OBSERVATIONS if _target(o) == "backend.openai.chat.success"]
    tool_starts = _tool_events(".start")
    tool_successes = _tool_events(".success")
    assert len(models) == len(starts) == 3 and len(tools) == len(tool_starts) == 2
    for event, success in zip(models, successes, strict=True):
        a = success["metadata"]["attributes"]
        n = sum(1 for k in a if k.startswith("llm.output_messages.") and k.endswith(".content"))
        answer = "".join(a[f"llm.output_messages.{i}.message.content"] for i in range(n))
        assert event["response"]["content"] == answer
    for event, start in zip(models, starts, strict=True):
        assert len(event["request"]["messages"]) == len(start["input"])
    by_id = {o["id"]: o for o in OBSERVATIONS}
    assert [(t["tool"], t["arguments"], t["result"]) for t in tools] == [
        (by_id[s["parentObservationId"]]["metadata"]["attributes"]["tool.name"],
         s["metadata"]["attributes"]["tool.parameters"],
         done["metadata"]["attributes"]["output.value"])
        for s, done in zip(tool_starts, tool_successes, strict=True)
    ]  # fmt: skip
    assert trace["terminal"]["output"] == TURNS[-1]


def test_beeai_tool_run_without_success_is_incomplete(
    corpus_dir: Path, cli: Cli, tmp_path: Path
) -> None:
    export = json.loads(json.dumps(EXPORT))
    export["observations"] = [
        o for o in export["observations"] if _target(o) != "tool.weather.openmeteo.success"
    ]
    path = tmp_path / "beeai-gap.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    refused = cli("-C", corpus_dir, "add", path, "--id", "beeai-gap")
    assert refused.code == 2 and "tool_call OpenMeteoTool" in refused.err
    assert "neither result nor error" in refused.err
    kept = cli("-C", corpus_dir, "add", path, "--id", "beeai-gap", "--allow-incomplete")
    assert kept.code == 0, kept.err
    trace = yaml.safe_load((corpus_dir / "cases/beeai-gap/trace.yaml").read_text("utf-8"))
    tools = [e for e in trace["events"] if e["type"] == "tool_call"]
    assert [t["tool"] for t in tools] == ["Wikipedia", "OpenMeteoTool"]
    assert "result" not in tools[1] and "error" not in tools[1]
