"""One long incident in the native format, generated deterministically: `corpus add`'s big input.

    python bench/long_incident.py OUT.json [--events 300000]

A support agent that ran for days in one session: every model call re-sends the system prompt
and the most recent messages of the conversation (the agent keeps its context window to the
last `WINDOW` messages, as long-running agents do), asks for a tool with JSON arguments, gets a
JSON result back; now and then a user writes in (English or Chinese), with an e-mail address
or a phone number in it (PII the redaction must replace), a call times out and is retried,
a side effect is recorded. The same seed and size give the same bytes on every machine.
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.corpus import DESKS, MODEL, sentence

WINDOW = 6  # messages of history each model call re-sends, besides the system prompt
TOOLS = sorted({t for tools in DESKS.values() for t in tools})


class _Session:
    def __init__(self, rng: random.Random):
        self.rng = rng
        self.events: list[dict[str, Any]] = []
        self.clock = 1_748_736_000_000  # 2025-06-01T00:00:00Z, in ms
        self.system = "You are the support desk assistant. " + " ".join(
            sentence(rng) for _ in range(4)
        )
        self.history: list[dict[str, Any]] = []
        self.tools = [
            {"type": "function", "function": {"name": t, "parameters": {"type": "object"}}}
            for t in DESKS["support"]
        ]
        self.calls = 0

    def stamp(self, took: int) -> str:
        self.clock += took
        seconds, ms = divmod(self.clock, 1000)
        moment = datetime.datetime.fromtimestamp(seconds, datetime.UTC)
        return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{ms:03d}Z"

    def add(self, event: dict[str, Any], took: int) -> None:
        self.events.append({"seq": len(self.events) + 1, **event, "timestamp": self.stamp(took)})

    def user_turn(self) -> None:
        rng = self.rng
        n = rng.randint(0, 9999)
        pii = rng.choice(
            [
                f" You can reach me at jane.doe{n}@example.com.",
                f" My phone is +1 415 555 {n:04d}.",
                f" 我的邮箱是 li.wei{n}@example.cn，电话 +86 138 0013 {n:04d}。",
                "",
            ]
        )
        self.history.append({"role": "user", "content": sentence(rng) + pii})

    def model_call(self, tool_calls: list[dict[str, Any]], content: str | None) -> None:
        messages = [{"role": "system", "content": self.system}, *self.history[-WINDOW:]]
        took = self.rng.randint(200, 3000)
        event: dict[str, Any] = {
            "type": "llm_request",
            "model": MODEL,
            "messages": json.loads(json.dumps(messages)),  # fresh copies, as a recorder writes
            "tools": self.tools,
            "temperature": 0.0,
            "response": {"content": content, "toolCalls": tool_calls},
            "durationMs": took,
        }
        self.add(event, took)
        self.history.append(
            {
                "role": "assistant",
                "content": content,
                **({"tool_calls": tool_calls} if tool_calls else {}),
            }
        )

    def tool_round(self) -> None:
        rng = self.rng
        self.calls += 1
        tool, call_id = rng.choice(TOOLS), f"call_{self.calls:07d}"
        arguments = {"order_id": f"O-{rng.randint(1000, 99999)}", "page": rng.randint(1, 9)}
        self.model_call([{"id": call_id, "name": tool, "arguments": dict(arguments)}], None)
        if rng.random() < 0.05:
            self._tool(tool, call_id, arguments, None)
            self.add({"type": "retry", "of": len(self.events), "attempt": 2}, 0)
        items = [
            {"sku": f"A{rng.randint(100, 999)}", "stock": rng.randint(0, 50), "note": sentence(rng)}
            for _ in range(rng.randint(1, 3))
        ]
        result = {"tool": tool, "ok": True, "items": items, "summary": sentence(rng)}
        if rng.random() < 0.1:
            result["customer"] = {"email": f"c{rng.randint(0, 99999)}@shop.example.org"}
        self._tool(tool, call_id, arguments, result)
        content = json.dumps(result, ensure_ascii=False, sort_keys=True)
        self.history.append({"role": "tool", "tool_call_id": call_id, "content": content})
        if rng.random() < 0.1:
            data = {"ref": f"R{rng.randint(100, 999)}"}
            self.add(
                {
                    "type": "side_effect",
                    "kind": f"{tool}_done",
                    "target": arguments["order_id"],
                    "data": data,
                },
                5,
            )

    def _tool(self, tool: str, call_id: str, arguments: Any, result: Any) -> None:
        took = self.rng.randint(20, 5000)
        event: dict[str, Any] = {
            "type": "tool_call",
            "tool": tool,
            "callId": call_id,
            "input": dict(arguments),
        }
        if result is None:
            event["error"] = {"type": "TimeoutError", "message": "the gateway did not answer"}
        else:
            event["result"] = result
        event |= {"egress": "support.internal", "durationMs": took}
        self.add(event, took)


def long_incident(events: int, seed: int = 31) -> dict[str, Any]:
    """A native-format incident of about `events` events (model calls, tool calls, ...)."""
    rng = random.Random(seed)
    session = _Session(rng)
    session.user_turn()
    first = session.history[0]["content"]
    while len(session.events) < events - 2:
        if rng.random() < 0.2:
            session.user_turn()
        session.tool_round()
    session.model_call([], sentence(rng))
    answer = sentence(rng)
    return {
        "schemaVersion": "1.0",
        "traceId": f"t-long-{events}",
        "startedAt": session.events[0]["timestamp"],
        "timezone": "Asia/Shanghai",
        "seed": 7,
        "agent": {
            "name": "support-agent",
            "version": "2.5.0",
            "configHash": "cfg-7c1d2e",
            "promptVersion": "support-v13",
            "toolSchemaHash": "ts-41aa90",
        },
        "input": {"userMessage": first, "context": {}, "conversation": []},
        "events": [
            *session.events,
            {
                "seq": len(session.events) + 1,
                "type": "final",
                "status": "succeeded",
                "output": answer,
            },
        ],
    }


def write_long_incident(path: Path, events: int, seed: int = 31) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(long_incident(events, seed), ensure_ascii=False)
    path.write_text(text, encoding="utf-8")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--events", type=int, default=300_000)
    args = parser.parse_args()
    write_long_incident(args.out, args.events)
    print(f"{args.out}: {args.out.stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
