"""A realistic corpus, generated deterministically: the input of every figure of `python -m bench`.

The shapes follow the example corpus and the public traces in `../shared/samples/`: an agent
desk (refunds, orders, inventory, ...) talks to a model that asks for tools; every model call
carries the whole conversation so far (so a trace grows with the square of its turns, as real
ones do), tool results are JSON objects or long documents, some calls fail with a timeout and
are retried, side effects and state changes are recorded, text is English and Chinese. Sizes:
most traces hold 1 to 4 tool calls (2 to 10 KB), a quarter 5 to 15, a few 20 to 40, and
`large` traces (a long session reading big documents) reach about a megabyte.

The same seed gives the same bytes on every machine. A handful of cases are broken on purpose
(a schema error, a duplicate key, an incomplete trace): a real corpus under review has some,
and they keep the explaining path of `corpus validate` in the figures.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpus_tool.io.files import dump_yaml

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
MODEL = "gpt-4.1-2025-04-14"
DESKS = {
    "refund": ["get_order", "create_refund", "check_refund", "cancel_refund"],
    "inventory": ["search_inventory", "reserve_stock", "calc_turnover", "notify_operator"],
    "shipping": ["track_parcel", "create_label", "get_customer", "update_address"],
    "support": ["search_kb", "open_ticket", "close_ticket", "send_email"],
}
HOSTS = {
    "refund": "payments.internal",
    "inventory": "inventory.internal",
    "shipping": "logistics.internal",
    "support": "kb.internal",
}
SENTENCES = [
    "The customer asked why the refund for order {order} has not arrived yet.",
    "查一下 {sku} 的库存，并告诉我东区仓库什么时候补货。",
    "I checked the warehouse east: stock is {n} units, next delivery on 2025-06-0{d}.",
    "Calling the tool with sku={sku} returned an empty list; retrying once.",
    "退款已提交，退款单号为 R{n}，预计 3-5 个工作日到账。",
    "The gateway returned HTTP 503 after {n} ms; falling back to the cache (ticket #{d}{n}).",
    "Summarise the conversation so far and decide whether a human needs to take over.",
    "用户说订单 {order} 的地址写错了，需要修改为新的收货地址。",
]
ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}
KEY_ID = "k-bench0000001"


@dataclass(frozen=True)
class Shape:
    """How big a generated corpus is."""

    cases: int
    large: int = 3  # traces of about a megabyte
    broken: int = 3  # cases with a finding on purpose
    waivers: int = 5
    small: bool = False  # one tool call per trace (about 3 KB): the 100,000-case corpus


def sentence(rng: random.Random) -> str:
    return rng.choice(SENTENCES).format(
        order=f"O-{rng.randint(1000, 99999)}",
        sku=f"A{rng.randint(100, 999)}",
        n=rng.randint(0, 99999),
        d=rng.randint(1, 9),
    )


def _calls(rng: random.Random, large: bool, small: bool = False) -> int:
    if small:
        return 1
    if large:
        return rng.randint(25, 30)
    roll = rng.random()
    if roll < 0.75:
        return rng.randint(1, 3)
    if roll < 0.97:
        return rng.randint(4, 8)
    return rng.randint(10, 20)


class _Run:
    """One simulated agent run, built event by event in trace.yaml form."""

    def __init__(self, rng: random.Random, desk: str, large: bool):
        self.rng, self.desk, self.large = rng, desk, large
        self.events: list[dict[str, Any]] = []
        self.clock = rng.randint(0, 10**6) * 1000  # ms after 2025-06-01
        self.user = sentence(rng)
        system = f"You are the {desk} assistant. Answer in the user's language. " + sentence(rng)
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": system},
            {"role": "user", "content": self.user},
        ]
        self.tools = [
            {"type": "function", "function": {"name": t, "parameters": {"type": "object"}}}
            for t in DESKS[desk]
        ]

    def stamp(self, took: int) -> str:
        self.clock += took
        seconds, ms = divmod(self.clock, 1000)
        minutes, sec = divmod(seconds, 60)
        hours, mins = divmod(minutes, 60)
        day, hour = divmod(hours, 24)
        return f"2025-06-{1 + day % 28:02d}T{hour:02d}:{mins:02d}:{sec:02d}.{ms:03d}Z"

    def add(self, event: dict[str, Any], took: int) -> None:
        event = {"seq": len(self.events) + 1, **event, "timestamp": self.stamp(took)}
        self.events.append(event)

    def model_call(self, tool_calls: list[dict[str, Any]], content: str | None) -> None:
        response: dict[str, Any] = {"content": content}
        if tool_calls:
            response["tool_calls"] = tool_calls
        # fresh copies: a shared object would be dumped as a YAML alias, which `corpus add` is not
        request = json.loads(
            json.dumps({"messages": self.messages, "tools": self.tools, "temperature": 0.0})
        )
        took = self.rng.randint(200, 3000)
        self.add(
            {
                "type": "model_call",
                "model": MODEL,
                "request": request,
                "response": response,
                "duration_ms": took,
            },
            took,
        )
        self.messages.append(
            {
                "role": "assistant",
                "content": content,
                **({"tool_calls": json.loads(json.dumps(tool_calls))} if tool_calls else {}),
            }
        )

    def result(self, tool: str) -> Any:
        rng = self.rng
        if self.large:  # a long session reading documents: tens of kilobytes each
            return {"document": " ".join(sentence(rng) for _ in range(rng.randint(20, 40)))}
        items = [
            {"sku": f"A{rng.randint(100, 999)}", "stock": rng.randint(0, 50), "note": sentence(rng)}
            for _ in range(rng.randint(1, 3))
        ]
        return {"tool": tool, "ok": True, "items": items, "summary": sentence(rng)}

    def tool_call(self, number: int) -> None:
        rng = self.rng
        tool = rng.choice(DESKS[self.desk])
        call_id = f"c{number}"
        arguments = {"order_id": f"O-{rng.randint(1000, 99999)}", "page": rng.randint(1, 9)}
        self.model_call([{"id": call_id, "name": tool, "arguments": dict(arguments)}], None)
        if rng.random() < 0.08:  # a timeout, then a retry of the same call
            self._call(tool, call_id, arguments, None)
            self.add({"type": "retry", "of": len(self.events), "attempt": 2}, 0)
        result = self.result(tool)
        self._call(tool, call_id, arguments, result)
        content = json.dumps(result, ensure_ascii=False, sort_keys=True)
        self.messages.append({"role": "tool", "tool_call_id": call_id, "content": content})
        if rng.random() < 0.15:
            self.add(
                {
                    "type": "side_effect",
                    "kind": f"{tool}_done",
                    "target": arguments["order_id"],
                    "data": {"ref": f"R{rng.randint(100, 999)}"},
                },
                5,
            )
        if rng.random() < 0.10:
            self.add({"type": "state_change", "key": "step", "value": number}, 1)

    def _call(self, tool: str, call_id: str, arguments: Any, result: Any) -> None:
        took = self.rng.randint(20, 5000)
        event = {
            "type": "tool_call",
            "tool": tool,
            "call_id": call_id,
            "arguments": dict(arguments),
        }
        if result is None:
            event["error"] = {"type": "TimeoutError", "message": "the gateway did not answer"}
        else:
            event["result"] = result
        event |= {"egress": HOSTS[self.desk], "duration_ms": took}
        self.add(event, took)


def trace_doc(
    case_id: str, rng: random.Random, large: bool = False, small: bool = False
) -> dict[str, Any]:
    """One trace.yaml document, in the shape (and key order) `corpus add` writes."""
    desk = rng.choice(sorted(DESKS))
    run = _Run(rng, desk, large)
    for number in range(1, _calls(rng, large, small) + 1):
        run.tool_call(number)
    answer = sentence(rng)
    run.model_call([], answer)
    status = rng.choice(["succeeded", "submitted", "submitted", "failed", "needs_human"])
    digest = hashlib.sha256(f"{case_id}/{rng.random()}".encode()).hexdigest()
    return {
        "schema_version": 1,
        "id": case_id,
        "source": {"format": "native", "trace_id": f"t-{case_id}", "sha256": digest},
        "recorded": {
            "started_at": run.events[0]["timestamp"],
            "timezone": "Asia/Shanghai",
            "seed": rng.randint(0, 1000),
            "agent": {
                "name": f"{desk}-agent",
                "version": "2.5.0",
                "config_hash": "cfg-7c1d2e",
                "prompt_version": f"{desk}-v13",
            },
            "models": [MODEL],
            "tool_schema_hash": "ts-41aa90",
        },
        "input": {"user_message": run.user, "context": {"channel": "web"}, "conversation": []},
        "events": run.events,
        "terminal": {"status": status, "output": answer, "seq": len(run.events) + 1},
        "redaction": {"policy": 1, "key_id": KEY_ID, "replaced": rng.randint(0, 3)},
    }


def expected_text(case_id: str, trace: dict[str, Any], rng: random.Random) -> str:
    """expected.yaml as a reviewer leaves it: comments, flow lists, the tools the trace used."""
    tools = sorted({e["tool"] for e in trace["events"] if e["type"] == "tool_call"})
    tier = rng.choice(["fast", "fast", "fast", "full", "archive"])
    return (
        "# Expectations: what must hold from now on when this case is replayed.\n"
        f"schema_version: 1\nid: {case_id}\ntitle: {sentence(rng)!r}\nstatus: active\n"
        f"tier: {tier}\nowner: {trace['recorded']['agent']['name']}-team\n"
        f"tags: [{trace['recorded']['agent']['name'].split('-')[0]}]\n"
        "replay:\n  mode: strict\n"
        f"trigger:\n  terminal_status: {trace['terminal']['status']}\n"
        "expect:\n  errors:\n    forbidden: [TypeError, KeyError]  # the agent's own bugs\n"
        f"  tools:\n    allowed: [{', '.join(tools)}]\n"
        f"  terminal:\n    status: {trace['terminal']['status']}  # reviewed\n"
    )


BROKEN = {
    # what a reviewer's edit can leave behind; each gives validate a finding to explain
    0: ("trace.yaml", "terminal:\n  status: ", "terminal:\n  status: finished\n  was: "),
    1: ("expected.yaml", "tier: ", "tier: fast\ntier: "),
    2: ("trace.yaml", "  type: retry\n", "  type: retry\n  note: by hand\n"),
}


def write_corpus(root: Path, shape: Shape, seed: int = 2026) -> Path:
    """A corpus directory (corpus.yaml, cases/, waivers/) under `root`; returns it."""
    rng = random.Random(seed)
    corpus = root / "evals"
    (corpus / "waivers").mkdir(parents=True)
    (corpus / "corpus.yaml").write_text(config_text(), encoding="utf-8")
    large = set(rng.sample(range(shape.cases), min(shape.large, shape.cases)))
    chosen = rng.sample(range(shape.cases), min(shape.broken, shape.cases))
    broken = dict(zip(chosen, BROKEN, strict=False))
    for i in range(shape.cases):
        case_id = f"case-{i:05d}"
        folder = corpus / "cases" / case_id
        folder.mkdir(parents=True)
        doc = trace_doc(case_id, rng, i in large, shape.small)
        texts = {"trace.yaml": dump_yaml(doc), "expected.yaml": expected_text(case_id, doc, rng)}
        if i in broken:
            name, old, new = BROKEN[broken[i]]
            texts[name] = texts[name].replace(old, new, 1)
        for name, text in texts.items():
            (folder / name).write_text(text, encoding="utf-8")
    for n in range(min(shape.waivers, shape.cases)):
        (corpus / "waivers" / f"W-{n:04d}.yaml").write_text(
            f"schema_version: 1\nid: W-{n:04d}\ncase: case-{n:05d}\nchecks: [tools.allowed]\n"
            "reason: the new tool lands next release\nowner: bench\nexpires: '2999-12-31'\n",
            encoding="utf-8",
        )
    return corpus


def config_text(entrypoint: str = "examples.refund_agent.agent:run") -> str:
    rules = "\n".join(
        f'    - {{paths: ["src/{desk}/**"], tools: [{", ".join(tools)}]}}'
        for desk, tools in sorted(DESKS.items())
    )
    return (
        "schema_version: 1\nname: bench\n"
        f"agent:\n  entrypoint: {entrypoint}\n  prompt_version: refund-v13\n"
        "redaction:\n  key_env: CORPUS_REDACTION_KEY\n  drop_keys: [authorization, password]\n"
        f"impact:\n  rules:\n{rules}\n  unmapped: all\n"
    )


def git(repo: Path, *args: str) -> None:
    env = {"PATH": os.environ.get("PATH", os.defpath), **ENV}  # git wherever the user has it
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)


def commit_all(repo: Path, message: str) -> None:
    """A git repository at `repo` (made if needed) with everything committed."""
    if not (repo / ".git").exists():
        git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


PASSING = (
    "check-refund-timeout-retry",
    "create-refund-lost-retry",
    "inventory-zero-stock",
    "refund-success",
)


def write_check_corpus(repo: Path, copies: int) -> Path:
    """The example agent and `copies` cases, copies of the example cases that pass."""
    shutil.copytree(EXAMPLES / "refund_agent", repo / "examples" / "refund_agent")
    corpus = repo / "evals"
    (corpus / "waivers").mkdir(parents=True)
    shutil.copy(EXAMPLES / "corpus" / "corpus.yaml", corpus / "corpus.yaml")
    for n in range(copies):
        name = PASSING[n % len(PASSING)]
        source, target = EXAMPLES / "corpus" / "cases" / name, corpus / "cases" / f"{name}-{n:05d}"
        target.mkdir(parents=True)
        for file in ("trace.yaml", "expected.yaml"):
            text = (source / file).read_text(encoding="utf-8")
            text = text.replace(f"id: {name}\n", f"id: {target.name}\n", 1)
            (target / file).write_text(text, encoding="utf-8")
    return corpus


def native_incidents(folder: Path, count: int, seed: int = 7) -> list[Path]:
    """`count` incidents in the native format (what `corpus add` reads), one file each."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        doc = trace_doc(f"incident-{i:05d}", rng)
        path = folder / f"incident-{i:05d}.json"
        path.write_text(json.dumps(to_native(doc), ensure_ascii=False, indent=1), "utf-8")
        paths.append(path)
    return paths


def to_native(trace: dict[str, Any]) -> dict[str, Any]:
    """A generated trace as the recorder would have written the incident (camelCase, flat)."""
    recorded = trace["recorded"]
    agent = recorded["agent"]
    return {
        "schemaVersion": "1.0",
        "traceId": trace["source"]["trace_id"],
        "startedAt": recorded["started_at"],
        "timezone": recorded["timezone"],
        "seed": recorded["seed"],
        "agent": {
            "name": agent["name"],
            "version": agent["version"],
            "configHash": agent["config_hash"],
            "promptVersion": agent["prompt_version"],
            "toolSchemaHash": recorded["tool_schema_hash"],
        },
        "input": {"userMessage": trace["input"]["user_message"], "context": {}, "conversation": []},
        "events": [
            *_native_events(trace["events"]),
            {
                "seq": trace["terminal"]["seq"],
                "type": "final",
                **{k: trace["terminal"][k] for k in ("status", "output")},
            },
        ],
    }


def _native_events(events: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for event in events:
        out = {
            k: v
            for k, v in event.items()
            if k not in ("request", "duration_ms", "call_id", "arguments", "response")
        }
        out["durationMs"] = event.get("duration_ms")
        if event["type"] == "model_call":
            response = event["response"]
            out |= {
                "type": "llm_request",
                **event["request"],
                "response": {
                    "content": response["content"],
                    "toolCalls": response.get("tool_calls", []),
                },
            }
        elif event["type"] == "tool_call":
            out |= {"callId": event["call_id"], "input": event["arguments"]}
        yield {k: v for k, v in out.items() if v is not None}
