"""Agents that call a provider SDK directly, and the incident they replay (tests of the
provider doubles, corpus_tool/replay/doubles).

One incident per provider, written in the native format by hand: a weather question, one tool
call (get_weather), the answer. Each agent is written out as a module of its own in the corpus
directory (outside git the corpus directory is the import root), with the mutation a test asks
for; the Runtime variant of each is the reference the doubles must agree with.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

SYSTEM = "You are the weather desk. Answer in one sentence."
QUESTION = "What is the weather in Paris?"
ANSWER = "It is 21 degrees and clear in Paris, a fine evening for a long walk by the river."
RESULT = {"sky": "clear", "temp_c": 21}
MODEL = {"openai": "gpt-4o-mini-2024-07-18", "anthropic": "claude-sonnet-4-20250514"}
USAGE = [{"input_tokens": 61, "output_tokens": 17}, {"input_tokens": 98, "output_tokens": 23}]
PARAMETERS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TOOLS = [
    {
        "type": "function",
        "function": {"name": "get_weather", "description": "Weather now", "parameters": PARAMETERS},
    }
]
MUTATIONS = ("argument", "skip", "prompt")
KINDS = {"argument": "ToolArguments", "skip": "UnusedRecording", "prompt": "ModelRequest"}


def incident(provider: str, separators: tuple[str, str] | None = None) -> dict[str, Any]:
    """The recorded run, in the native incident format (the tool result as the agent wrote it
    into its next request: json.dumps with `separators`; JSON.stringify's are (",", ":"))."""
    call = {"id": "call_w1", "name": "get_weather", "arguments": {"city": "Paris"}}
    first = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTION}]
    second = [
        *first,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {
            "role": "tool",
            "tool_call_id": "call_w1",
            "content": json.dumps(RESULT, separators=separators),
        },
    ]
    stop = ("tool_calls", "stop") if provider == "openai" else ("tool_use", "end_turn")

    def model_call(seq: int, messages: list[Any], response: dict[str, Any], n: int) -> Any:
        return {
            "seq": seq,
            "type": "llm_request",
            "model": MODEL[provider],
            "messages": messages,
            "tools": TOOLS,
            "temperature": 0.0,
            "response": {**response, "finishReason": stop[n]},
            "usage": USAGE[n],
            "timestamp": f"2025-06-01T10:00:0{seq}.000Z",
            "durationMs": 300,
        }

    return {
        "schemaVersion": "1.0",
        "traceId": f"t-weather-{provider}",
        "sessionId": f"s-weather-{provider}",
        "startedAt": "2025-06-01T10:00:00.000Z",
        "timezone": "UTC",
        "seed": 7,
        "appVersion": "weather-1.0",
        "agent": {"name": "weather-desk", "version": "1.0", "promptVersion": "w1"},
        "input": {"userMessage": QUESTION, "context": {"userId": "u_1"}, "conversation": []},
        "events": [
            model_call(1, first, {"content": None, "toolCalls": [call]}, 0),
            {
                "seq": 2,
                "type": "tool_call",
                "tool": "get_weather",
                "callId": "call_w1",
                "input": {"city": "Paris"},
                "result": RESULT,
                "timestamp": "2025-06-01T10:00:01.300Z",
                "durationMs": 50,
            },
            model_call(3, second, {"content": ANSWER, "toolCalls": []}, 1),
            {"seq": 4, "type": "final", "status": "succeeded", "output": ANSWER},
        ],
    }


OPENAI_AGENT = """
import json
from openai import OpenAI

SYSTEM = {system!r}
TOOLS = {tools!r}
MUTATION = {mutation!r}
STREAM = {stream!r}


def get_weather(city):
    return {result!r} if city == "Paris" else {{"sky": "unknown"}}


def ask(client, messages):
    asked = dict(model={model!r}, messages=messages, tools=TOOLS, temperature=0)
    if not STREAM:
        return client.chat.completions.create(**asked)
    with client.chat.completions.stream(**asked, stream_options={{"include_usage": True}}) as s:
        return s.get_final_completion()


CLIENTS = []  # one client for the process, built at the first case, as agents keep theirs


def run(case_input):
    CLIENTS[:] = CLIENTS or [OpenAI(max_retries=0)]
    client = CLIENTS[0]
    system = SYSTEM + (" Be brief." if MUTATION == "prompt" else "")
    messages = [{{"role": "system", "content": system}},
                {{"role": "user", "content": case_input["user_message"]}}]
    for _ in range(4):
        reply = client_reply = ask(client, messages)
        message = reply.choices[0].message
        if not message.tool_calls:
            return {{"status": "succeeded", "output": message.content}}
        if MUTATION == "skip":
            messages.append({{"role": "user", "content": "Never mind the tool."}})
            continue
        calls = []
        for call in message.tool_calls:
            arguments = json.loads(call.function.arguments)
            if MUTATION == "argument":
                arguments["city"] = arguments["city"].upper()
            calls.append((call.id, call.function.name, arguments))
        messages.append({{"role": "assistant", "content": message.content, "tool_calls": [
            {{"id": i, "type": "function", "function": {{"name": n, "arguments": json.dumps(a)}}}}
            for i, n, a in calls]}})
        for call_id, name, arguments in calls:
            messages.append({{"role": "tool", "tool_call_id": call_id,
                             "content": json.dumps(get_weather(**arguments))}})
    return {{"status": "step_limit", "output": None}}
"""

ANTHROPIC_AGENT = """
import json
import anthropic

SYSTEM = {system!r}
TOOLS = [{{"name": t["function"]["name"], "description": t["function"]["description"],
           "input_schema": t["function"]["parameters"]}} for t in {tools!r}]
MUTATION = {mutation!r}
STREAM = {stream!r}


def get_weather(city):
    return {result!r} if city == "Paris" else {{"sky": "unknown"}}


def ask(client, messages, system):
    asked = dict(model={model!r}, max_tokens=512, system=system,
                 messages=messages, tools=TOOLS)
    if not STREAM:
        return client.messages.create(**asked)
    with client.messages.stream(**asked) as s:
        return s.get_final_message()


CLIENTS = []  # one client for the process, built at the first case, as agents keep theirs


def run(case_input):
    CLIENTS[:] = CLIENTS or [anthropic.Anthropic(max_retries=0)]
    client = CLIENTS[0]
    system = SYSTEM + (" Be brief." if MUTATION == "prompt" else "")
    messages = [{{"role": "user", "content": case_input["user_message"]}}]
    for _ in range(4):
        reply = ask(client, messages, system)
        uses = [b for b in reply.content if b.type == "tool_use"]
        if not uses:
            return {{"status": "succeeded", "output": "".join(b.text for b in reply.content)}}
        if MUTATION == "skip":
            messages.append({{"role": "user", "content": "Never mind the tool."}})
            continue
        blocks, results = [], []
        for use in uses:
            arguments = dict(use.input)
            if MUTATION == "argument":
                arguments["city"] = arguments["city"].upper()
            blocks.append({{"type": "tool_use", "id": use.id, "name": use.name,
                           "input": arguments}})
            results.append({{"type": "tool_result", "tool_use_id": use.id,
                            "content": json.dumps(get_weather(**arguments))}})
        messages.append({{"role": "assistant", "content": blocks}})
        messages.append({{"role": "user", "content": results}})
    return {{"status": "step_limit", "output": None}}
"""

RUNTIME_AGENT = """
import json

SYSTEM = {system!r}
TOOLS = {tools!r}
MUTATION = {mutation!r}
MODEL = {model!r}


def get_weather(rt, city):
    return rt.tool("get_weather", {{"city": city}})


def run(case_input, rt):
    system = SYSTEM + (" Be brief." if MUTATION == "prompt" else "")
    messages = [{{"role": "system", "content": system}},
                {{"role": "user", "content": case_input["user_message"]}}]
    for _ in range(4):
        reply = rt.model(messages, tools=TOOLS, model=MODEL, temperature=0)
        if not reply.tool_calls:
            return {{"status": "succeeded", "output": reply.content}}
        if MUTATION == "skip":
            messages.append({{"role": "user", "content": "Never mind the tool."}})
            continue
        calls = []
        for call in reply.tool_calls:
            arguments = dict(call.arguments)
            if MUTATION == "argument":
                arguments["city"] = arguments["city"].upper()
            calls.append((call.id, call.name, arguments))
        messages.append({{"role": "assistant", "content": reply.content, "tool_calls": [
            {{"id": i, "name": n, "arguments": a}} for i, n, a in calls]}})
        for call_id, name, arguments in calls:
            messages.append({{"role": "tool", "tool_call_id": call_id,
                             "content": json.dumps(get_weather(rt, **arguments))}})
    return {{"status": "step_limit", "output": None}}
"""


def agent_source(
    kind: str, mutation: str = "", stream: bool = False, provider: str = "openai"
) -> str:
    """The module text of an agent: `openai`, `anthropic` or `runtime` (over `provider`'s
    incident), with `mutation` (one of MUTATIONS, or none)."""
    template = {"openai": OPENAI_AGENT, "anthropic": ANTHROPIC_AGENT, "runtime": RUNTIME_AGENT}
    model = MODEL[provider if kind == "runtime" else kind]
    return template[kind].format(
        system=SYSTEM,
        tools=TOOLS,
        mutation=mutation,
        stream=stream,
        result=RESULT,
        model=model,
    )


def weather_corpus(
    root: Path, cli: Any, provider: str, separators: tuple[str, str] | None = None
) -> Path:
    """A corpus at `root` holding the provider's incident as case `weather`, active."""
    assert cli("init", root).code == 0
    path = root.parent / f"weather-{provider}.json"
    path.write_text(json.dumps(incident(provider, separators)), encoding="utf-8")
    added = cli("add", path, "--id", "weather", cwd=root)
    assert added.code == 0, added.stderr
    expected = root / "cases" / "weather" / "expected.yaml"
    doc = yaml.safe_load(expected.read_text(encoding="utf-8"))
    doc["status"] = "active"
    expected.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return root


def use_agent(root: Path, source: str, name: str = "weather_agent") -> None:
    """Point corpus.yaml agent.entrypoint at a module `name` holding `source`."""
    (root / f"{name}.py").write_text(source, encoding="utf-8")
    config_path = root / "corpus.yaml"
    config = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    config.setdefault("agent", {})["entrypoint"] = f"{name}:run"
    config["agent"].pop("command", None)
    config_path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")


NODE_AGENT = """
import fs from "node:fs";
import OpenAI from "openai";

const input = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const TOOLS = %(tools)s;
const MUTATION = %(mutation)s;
const client = new OpenAI({ maxRetries: 0 });
const weather = ({ city }) => (city === "Paris" ? %(result)s : { sky: "unknown" });
const system = %(system)s + (MUTATION === "prompt" ? " Be brief." : "");
const messages = [
  { role: "system", content: system },
  { role: "user", content: input.user_message },
];
for (let step = 0; step < 4; step++) {
  const reply = await client.chat.completions.create({
    model: %(model)s, messages, tools: TOOLS, temperature: 0,
  });
  const message = reply.choices[0].message;
  if (!message.tool_calls || message.tool_calls.length === 0) {
    console.log("the model answered");
    console.log(JSON.stringify({ status: "succeeded", output: message.content }));
    process.exit(0);
  }
  messages.push({ role: "assistant", content: message.content, tool_calls: message.tool_calls });
  for (const call of message.tool_calls) {
    const content = JSON.stringify(weather(JSON.parse(call.function.arguments)));
    messages.push({ role: "tool", tool_call_id: call.id, content });
  }
}
console.log(JSON.stringify({ status: "step_limit", output: null }));
"""


def node_source(mutation: str = "") -> str:
    """The Node agent (the real `openai` npm package), as an ES module."""
    return NODE_AGENT % {
        "tools": json.dumps(TOOLS),
        "mutation": json.dumps(mutation),
        "result": json.dumps(RESULT),
        "system": json.dumps(SYSTEM),
        "model": json.dumps(MODEL["openai"]),
    }


def use_command(root: Path, argv: list[str]) -> None:
    """Point corpus.yaml at `agent.command` instead of an entrypoint."""
    config_path = root / "corpus.yaml"
    config = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    agent = config.setdefault("agent", {})
    agent.pop("entrypoint", None)
    agent["command"] = argv
    config_path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
