"""A logging gateway on the loopback, between agents written with the real `openai` SDK and a
provider that restarts tool-call ids each turn: what a team's own gateway records.

- The provider (`_Provider`) answers Chat Completions as some OpenAI-compatible servers do:
  every tool call it asks for is `call_0`, whatever the turn.
- The gateway (`_Gateway`) passes each request on and appends the exchange, as it went over
  the wire, to one log shared by every agent behind it (JSON lines: the session header, the
  request body the SDK sent, the provider's answer, the time taken).
- `incidents` exports the log as such a gateway exports an incident: one native incident per
  session (DESIGN.md, "The native incident format"; docs/formats.md's native row), written the
  way a gateway in JavaScript writes it — camelCase parameter names, every request parameter
  inline on the `llm_request` (and the provider's defaults the agent never sent, `topP` and
  `n`), its own bookkeeping (`provider`, `latencyMs`, `requestId`), a requested call's `type`,
  the tool calls read back from the next request's tool messages, a `final` event with its
  `timestamp` and `node`.

The native format is this project's own, so no public producer's file exists to copy; what
the incident holds comes from the real SDK's requests, and the tests count it from `log`.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

from tests.replay.sdk_upstream import serving

MODEL = "gpt-4o-mini-2024-07-18"
SESSION = "X-Session-Id"
DEFAULTS = {"top_p": 1, "n": 1}
"""What the provider applies to a parameter the agent did not send, and the gateway logs."""


def _stock(sku: str) -> int:
    return sum(map(ord, sku)) % 7


class _Provider(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        question = next(m["content"] for m in body["messages"] if m["role"] == "user")
        skus = [w.strip("?,.") for w in question.split() if w[:1].isupper() and w[1:2].isdigit()]
        done = [m for m in body["messages"] if m["role"] == "tool"]
        message: dict[str, Any] = {
            "role": "assistant",
            "content": None,
            "refusal": None,
            "annotations": [],
        }  # as the API answers
        if len(done) < len(skus):
            arguments = json.dumps({"sku": skus[len(done)]})
            call = {"name": "get_stock", "arguments": arguments}
            message["tool_calls"] = [{"id": "call_0", "type": "function", "function": call}]
        else:
            counts = [json.loads(m["content"])["count"] for m in done]
            message["content"] = ", ".join(f"{s}: {n}" for s, n in zip(skus, counts, strict=True))
        reason = "tool_calls" if "tool_calls" in message else "stop"
        answer = {
            "id": f"chatcmpl-{len(done)}", "object": "chat.completion", "created": 1767225600,
            "model": MODEL, "choices": [{"index": 0, "message": message, "finish_reason": reason}],
            "usage": {"prompt_tokens": 30 + 9 * len(done), "completion_tokens": 12,
                      "total_tokens": 42 + 9 * len(done)},
        }  # fmt: skip
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _Gateway(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    upstream: ClassVar[str] = ""
    log: ClassVar[Path]
    lock: ClassVar[threading.Lock] = threading.Lock()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_POST(self) -> None:
        sent = self.rfile.read(int(self.headers["Content-Length"]))
        started = time.monotonic()
        forward = urllib.request.Request(
            self.upstream + self.path, sent, {"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(forward) as answer:
            data = answer.read()
        line = {
            "session": self.headers.get(SESSION),
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "latency_ms": round((time.monotonic() - started) * 1000, 3),
            "request": json.loads(sent),
            "response": json.loads(data),
        }
        with self.lock, self.log.open("a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@contextmanager
def gateway(log: Path) -> Iterator[str]:
    """The provider behind the logging gateway, for the block: the gateway's base URL (`/v1`)."""
    with serving(_Provider) as provider:
        _Gateway.upstream, _Gateway.log = provider, log
        with serving(_Gateway) as base:
            yield base + "/v1"


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _llm_request(seq: int, line: dict[str, Any]) -> dict[str, Any]:
    request, answer = dict(line["request"]), line["response"]
    message = answer["choices"][0]["message"]
    event: dict[str, Any] = {
        "seq": seq, "type": "llm_request", "timestamp": line["at"], "model": request.pop("model"),
        "messages": request.pop("messages"),
    }  # fmt: skip
    if "tools" in request:
        event["tools"] = request.pop("tools")
    params = {**DEFAULTS, **request}
    event.update({_camel(k): v for k, v in params.items()})
    calls = [
        {"id": c["id"], "type": c["type"], "name": c["function"]["name"],
         "arguments": c["function"]["arguments"]}
        for c in message.get("tool_calls") or []
    ]  # fmt: skip
    event["response"] = {"content": message["content"], "finishReason": answer["choices"][0]
                         ["finish_reason"], **({"toolCalls": calls} if calls else {})}  # fmt: skip
    event.update(
        usage=answer["usage"], provider="openai", latencyMs=line["latency_ms"],
        requestId=answer["id"],
    )  # fmt: skip
    return event


def _tool_calls(seq: int, asked: dict[str, Any], later: dict[str, Any]) -> list[dict[str, Any]]:
    """The calls one answer asked for, with the results the next request sent back: the tool
    message right after the assistant message that asked (ids alone may repeat)."""
    messages = later["request"]["messages"]
    calls = asked["response"]["choices"][0]["message"].get("tool_calls") or []
    at = len(asked["request"]["messages"]) + 1  # the assistant message, then its tool messages
    out = []
    for n, call in enumerate(calls):
        result = messages[at + n]
        assert result["role"] == "tool" and result["tool_call_id"] == call["id"]
        out.append({
            "seq": seq + n, "type": "tool_call", "tool": call["function"]["name"],
            "callId": call["id"], "input": json.loads(call["function"]["arguments"]),
            "result": json.loads(result["content"]),
        })  # fmt: skip
    return out


def incidents(log: Path, out: Path) -> dict[str, Path]:
    """The gateway's export: one native incident per session in the log, by session."""
    lines = [json.loads(t) for t in log.read_text(encoding="utf-8").splitlines()]
    written = {}
    for session in dict.fromkeys(line["session"] for line in lines):
        mine = [line for line in lines if line["session"] == session]
        events: list[dict[str, Any]] = []
        for i, line in enumerate(mine):
            events.append(_llm_request(len(events) + 1, line))
            if i + 1 < len(mine):
                events.extend(_tool_calls(len(events) + 1, line, mine[i + 1]))
        last = mine[-1]["response"]["choices"][0]["message"]["content"]
        events.append({
            "seq": len(events) + 1, "type": "final", "status": "succeeded", "output": last,
            "timestamp": mine[-1]["at"], "node": "gateway",
        })  # fmt: skip
        doc = {
            "schemaVersion": "1.0", "traceId": session, "startedAt": mine[0]["at"],
            "agent": {"name": "stock-desk", "version": "1.0"}, "events": events,
        }  # fmt: skip
        path = out / f"{session}.json"
        path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
        written[session] = path
    return written


AGENT = """
import json
import os

from openai import OpenAI

TOOLS = [{"type": "function", "function": {"name": "get_stock", "description": "Units in stock.",
          "parameters": {"type": "object", "properties": {"sku": {"type": "string"}},
                         "required": ["sku"]}}}]
PARAMS = dict(temperature=0.2, presence_penalty=PRESENCE, parallel_tool_calls=False,
              max_completion_tokens=256, seed=7, tool_choice="auto")


def get_stock(sku):
    return {"sku": sku, "count": sum(map(ord, sku)) % 7}


def ask(session, question):
    client = OpenAI(max_retries=0, default_headers={"X-Session-Id": session})
    messages = [{"role": "system", "content": "You are the stock desk."},
                {"role": "user", "content": question}]
    while True:
        message = client.chat.completions.create(
            model="gpt-4o-mini", messages=messages, tools=TOOLS, **PARAMS
        ).choices[0].message
        if not message.tool_calls:
            return message.content
        messages.append(message)  # the SDK's own message object, sent back as it serializes it
        for c in message.tool_calls:
            result = get_stock(**json.loads(c.function.arguments))
            messages.append({"role": "tool", "tool_call_id": c.id, "content": json.dumps(result)})


def run(case_input):
    return {"status": "succeeded", "output": ask("replay", case_input["user_message"])}
"""


def agent_source(presence: float = 0.1) -> str:
    """The agent's module: the real SDK, no corpus-tool import; `presence` its presence_penalty."""
    return AGENT.replace("PRESENCE", repr(presence))
