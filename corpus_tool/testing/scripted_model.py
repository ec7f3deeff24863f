"""A scripted, seeded, stochastic OpenAI-compatible model server for the example refund desk.

It answers `POST /v1/chat/completions` on the loopback the way a real model would for the
example desks (examples/refund_agent): it calls tools, reads their results, and answers in
words that vary run to run. Its behaviour depends on the system prompt's wording: without
"only delivered orders" it often skips the get_order lookup (and guesses the refund), and
without "amounts are in cents" it refunds the display price (the refund-wrong-unit
incident). Each answer is drawn from a random.Random seeded by the server's seed, the
conversation, and how many times that conversation was asked before, so a run is repeatable
whatever order cases arrive in, while a repeated case can come out differently.

`cases` sets a known pass rate per case (and side): a `CaseScript` under a key whose parts
(split on `&`) all occur in the system prompt or the user message makes the lookup with that
probability, whatever the prompt says (the key with the most parts wins), and may answer as
another model id; `model_id` answers every request as that model (the live gate's tests).

`fail` makes the next requests answer with HTTP statuses (429, 503, ...) before any succeeds;
`together` (a Barrier) holds the first requests until all its parties arrived; `requests` holds
every request body it received. For tests and the bench only.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import threading
from collections import Counter, deque
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SKIP_RATE = 0.8
"""How often the lookup is skipped when the prompt does not insist on delivered orders."""


@dataclass(frozen=True)
class CaseScript:
    """A case's known pass rate (the chance it makes the lookup) and the model id it answers
    as (None: the one asked for)."""

    pass_rate: float | None = None
    model: str | None = None


class ModelScript:
    """The model's decisions, and what the server was asked."""

    def __init__(
        self,
        seed: int = 0,
        skip_rate: float = SKIP_RATE,
        cases: Mapping[str, CaseScript] | None = None,
        model_id: str | None = None,
    ) -> None:
        self.seed = seed
        self.skip_rate = skip_rate
        self.cases: dict[str, CaseScript] = dict(cases or {})
        self.model_id = model_id
        self.requests: list[dict[str, Any]] = []
        self.usage: list[dict[str, int]] = []  # the `usage` of each answer served, in order
        self.fail: deque[int] = deque()  # statuses for the next requests, then success
        self.always: int | None = None  # a status for every request (a provider that is down)
        self.together: threading.Barrier | None = None  # the first requests wait for each other
        self.stall: threading.Event | None = None  # every request waits until it is set (a hang)
        self._seen: Counter[str] = Counter()
        self._lock = threading.Lock()

    def reset(self) -> None:
        """Forget what was asked: the same requests get the same answers again."""
        with self._lock:
            self.requests.clear()
            self.usage.clear()
            self._seen.clear()

    def respond(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """The status and JSON body of the answer to one request."""
        with self._lock:
            self.requests.append(body)
            arrived = len(self.requests)
        if self.stall is not None:
            self.stall.wait()
        if self.together is not None and arrived <= self.together.parties:
            try:  # answered only once the others are asked too: calls must be concurrent
                self.together.wait()
            except threading.BrokenBarrierError:
                return 500, {"error": {"message": "the requests did not come together"}}
        with self._lock:
            status = self.always or (self.fail.popleft() if self.fail else 200)
            key = _digest(body.get("messages"))
            self._seen[key] += 1
            rng = random.Random(f"{self.seed}:{key}:{self._seen[key]}")
        if status != 200:
            return status, {"error": {"message": f"scripted status {status}", "type": "scripted"}}
        scripted = self.case_of(body)
        answer = completion(body, decide(body, rng, self.skip_rate, scripted.pass_rate), rng)
        model = scripted.model or self.model_id
        if model:
            answer["model"] = model
        with self._lock:
            self.usage.append(answer["usage"])
        return 200, answer

    def case_of(self, body: dict[str, Any]) -> CaseScript:
        """The CaseScript whose key matches the request (most parts first); else none."""
        text = "\n".join(_texts(body.get("messages") or []))
        found = [
            (len(key.split("&")), key)
            for key in self.cases
            if all(part in text for part in key.split("&"))
        ]
        return self.cases[max(found)[1]] if found else CaseScript()


def _texts(messages: list[dict[str, Any]]) -> list[str]:
    """The system prompt and the user message of a conversation."""
    return [str(m.get("content") or "") for m in messages if m.get("role") in ("system", "user")][
        :2
    ]


def decide(
    body: dict[str, Any], rng: random.Random, skip_rate: float, pass_rate: float | None = None
) -> dict[str, Any]:
    """The assistant message: tool calls, or the final answer; `pass_rate`: the chance of the
    lookup, whatever the prompt says."""
    messages = body.get("messages") or []
    system = next((m.get("content") or "" for m in messages if m.get("role") == "system"), "")
    user = next((m.get("content") or "" for m in messages if m.get("role") == "user"), "")
    done = _results(messages)
    tools = {t.get("function", {}).get("name") for t in body.get("tools") or []}
    if "search_inventory" in tools:
        return _inventory(user, system, rng)
    return _refund(str(system), str(user), done, rng, skip_rate, pass_rate)


def _inventory(user: str, system: str, rng: random.Random) -> dict[str, Any]:
    sku = _find(r"[A-Z]\d{3}", user) or "A000"
    calls: list[tuple[str, dict[str, Any]]] = [("search_inventory", {"sku": sku})]
    if "recent sales" in system or rng.random() < 0.5:
        calls.append(("get_sales", {"sku": sku, "days": 30}))
    return _calls(calls, rng)


def _refund(
    system: str,
    user: str,
    done: dict[str, Any],
    rng: random.Random,
    skip_rate: float,
    pass_rate: float | None = None,
) -> dict[str, Any]:
    refund, order = _find(r"R\d{3,}", user), _find(r"O-\d+", user)
    if refund and "cancel" in user.lower():
        if "cancel_refund" not in done:
            return _calls([("cancel_refund", {"refund_id": refund})], rng)
        return _say(rng, f"Refund {refund} is cancelled.", f"I cancelled refund {refund}.")
    if refund and not order:
        state = done.get("check_refund")
        if not isinstance(state, dict) or "state" not in state:
            return _calls([("check_refund", {"refund_id": refund})], rng)
        day = str(state.get("settled_at") or "")[:10]
        return _say(
            rng,
            f"Refund {refund} was {state['state']} on {day}.",
            f"Your refund {refund} is {state['state']} (since {day}).",
        )
    thorough = "only delivered orders" in system.lower()
    if "get_order" not in done and "create_refund" not in done:
        if pass_rate is not None:
            if rng.random() < pass_rate:
                return _calls([("get_order", {"order_id": order})], rng)
        elif thorough or rng.random() >= skip_rate:
            return _calls([("get_order", {"order_id": order})], rng)
    if "create_refund" not in done:
        return _calls([("create_refund", _refund_args(order, done.get("get_order"), system))], rng)
    return _answer(order, done, rng)


def _refund_args(order: str | None, found: Any, system: str) -> dict[str, Any]:
    if not isinstance(found, dict) or "amount_cents" not in found:
        return {"order_id": order}  # no lookup: nothing to say how much
    if "in cents" in system:
        return {"order_id": order, "amount": found["amount_cents"]}
    return {"order_id": order, "amount": int(float(found.get("price_display") or 0))}


def _answer(order: str | None, done: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    made, found = done.get("create_refund"), done.get("get_order")
    if not isinstance(made, dict) or not made.get("refund_id"):
        return _say(rng, f"I could not confirm a refund for {order}; a colleague will follow up.")
    amount = done.get("_amount") or 0
    currency = found.get("currency", "CNY") if isinstance(found, dict) else "CNY"
    shown = f"{amount / 100:.2f} {currency}"
    rid = made["refund_id"]
    return _say(
        rng,
        f"Your refund {rid} of {shown} has been submitted; it reaches your account in 3-5 days.",
        f"Refund {rid} for {shown} is submitted and should arrive in 3-5 days.",
        f"I have submitted refund {rid} ({shown}); expect it within 3-5 days.",
    )


def _results(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """Tool name -> its latest result, read from the conversation (and the refund's amount)."""
    names: dict[Any, Any] = {}
    done: dict[str, Any] = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            names[call.get("id")] = function.get("name")
            if function.get("name") == "create_refund":
                done["_amount"] = json.loads(function.get("arguments") or "{}").get("amount")
        if message.get("role") == "tool":
            try:
                done[names.get(message.get("tool_call_id"), "?")] = json.loads(
                    message.get("content") or "null"
                )
            except ValueError:
                continue
    return done


def _calls(calls: list[tuple[str, dict[str, Any]]], rng: random.Random) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{rng.getrandbits(40):010x}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
            for name, args in calls
        ],
    }


def _say(rng: random.Random, *texts: str) -> dict[str, Any]:
    return {"role": "assistant", "content": rng.choice(texts)}


def completion(body: dict[str, Any], message: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A Chat Completions response around one assistant message."""
    asked = json.dumps(body.get("messages"))
    said = json.dumps(message)
    return {
        "id": f"chatcmpl-{rng.getrandbits(48):012x}",
        "object": "chat.completion",
        "created": 1748772000,
        "model": str(body.get("model") or "scripted"),
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": len(asked) // 4,
            "completion_tokens": len(said) // 4,
            "total_tokens": len(asked) // 4 + len(said) // 4,
        },
    }


def _find(pattern: str, text: str) -> str | None:
    found = re.search(pattern, text)
    return found.group(0) if found else None


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]


class _Handler(BaseHTTPRequestHandler):
    script: ModelScript

    def do_POST(self) -> None:
        size = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(size) or b"{}")
        except ValueError:
            body = {}
        status, answer = self.script.respond(body if isinstance(body, dict) else {})
        data = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: tests read `ModelScript.requests`."""


@contextmanager
def serving(script: ModelScript) -> Iterator[str]:
    """Serve `script` on 127.0.0.1; yields the base URL (`http://127.0.0.1:PORT/v1`)."""
    handler = type("Handler", (_Handler,), {"script": script})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="scripted-model", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
