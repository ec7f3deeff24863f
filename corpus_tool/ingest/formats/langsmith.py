"""LangSmith / LangChain runs: run trees (`child_runs`), flat lists (`parent_run_id`,
`dotted_order`), `{runs: [...]}`, and the SDK's recorded `{post, patch}` payloads.

`run_type` llm -> model call (the tools it was offered from `extra.invocation_params.tools`),
tool -> tool call (string `error` -> tool error), chain -> the run's input and output; times
are epoch milliseconds or ISO 8601.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.ingest.body import first_user_text, last_answer, terminal_from, trace_body
from corpus_tool.ingest.build import error_event, model_event, tool_event
from corpus_tool.ingest.chat import message, messages, text_of, tool_message_result
from corpus_tool.ingest.coerce import (
    arguments,
    error,
    iso_from_epoch,
    obj,
    opt_id,
    parse_time_key,
    result_value,
)
from corpus_tool.ingest.imported import Imported
from corpus_tool.model.values import ABSENT

_RUN_TYPES = {"llm", "tool", "chain", "retriever", "prompt", "parser", "embedding"}


class LangSmithImporter:
    """LangSmith run exports."""

    name = "langsmith"

    def sniff(self, data: Any, path: Path) -> bool:
        runs = _runs(data)
        return bool(runs) and all("run_type" in r or "child_runs" in r for r in runs[:3])

    def load(self, data: Any, path: Path) -> list[Imported]:
        runs = _runs(data)
        if not runs:
            raise InputError("not LangSmith runs: expected runs with a run_type", path)
        flat = _flatten(runs)
        by_trace: dict[str, list[dict[str, Any]]] = {}
        for run in flat:
            by_trace.setdefault(str(run.get("trace_id") or _root_of(run, flat)), []).append(run)
        return [_imported(tid, group) for tid, group in by_trace.items()]


IMPORTER = LangSmithImporter()


def _runs(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, dict) and isinstance(data.get("post"), list):
        return _merge_posts(data["post"], data.get("patch") or [])
    if isinstance(data, dict) and isinstance(data.get("runs"), list):
        data = data["runs"]
    elif isinstance(data, dict) and "run_type" in data:
        data = [data]
    return [r for r in data if isinstance(r, dict) and "id" in r] if isinstance(data, list) else []


def _merge_posts(posts: list[Any], patches: list[Any]) -> list[dict[str, Any]]:
    """The SDK creates a run (post) and completes it (patch): together they are the run."""
    runs = {str(p.get("id")): dict(p) for p in posts if isinstance(p, dict)}
    by_order = {str(r.get("dotted_order")): r for r in runs.values()}
    for patch in patches:
        if not isinstance(patch, dict):
            continue
        # the JS SDK's patches carry no id: the dotted order names the run as well
        run = runs.get(str(patch.get("id"))) or by_order.get(str(patch.get("dotted_order")))
        if run is not None:
            run.update({k: v for k, v in patch.items() if v is not None})
    return list(runs.values())


def _flatten(runs: list[dict[str, Any]], parent: Any = None) -> list[dict[str, Any]]:
    out = []
    for run in runs:
        run = {**run, "parent_run_id": run.get("parent_run_id") or parent}
        children = run.pop("child_runs", None) or []
        out.append(run)
        out.extend(_flatten([ch for ch in children if isinstance(ch, dict)], run.get("id")))
    return out


def _root_of(run: dict[str, Any], runs: list[dict[str, Any]]) -> Any:
    by_id = {r.get("id"): r for r in runs}
    seen = {run.get("id")}
    while run.get("parent_run_id") in by_id and run["parent_run_id"] not in seen:
        run = by_id[run["parent_run_id"]]
        seen.add(run.get("id"))
    return run.get("id")


def _order(run: dict[str, Any]) -> tuple[str, float]:
    return (str(run.get("dotted_order") or ""), parse_time_key(_time(run.get("start_time"))))


def _time(value: Any) -> str | None:
    return iso_from_epoch(value) if isinstance(value, (int, float)) else value


def _imported(trace_id: str, runs: list[dict[str, Any]]) -> Imported:
    runs = sorted(runs, key=_order)
    events = _in_order(runs)
    ids = {r.get("id") for r in runs}
    root = next((r for r in runs if r.get("parent_run_id") not in ids), runs[0])
    meta = (_extra(root).get("metadata") or {}) if isinstance(_extra(root), dict) else {}
    answer = _text_output(root.get("outputs"))
    body = trace_body(
        events,
        started_at=_time(root.get("start_time")),
        agent={"name": root.get("name"), "version": meta.get("revision_id")},
        user_message=first_user_text(events) or _text_input(root.get("inputs")),
        terminal=terminal_from(
            events,
            bool(root.get("error")) or root.get("status") == "error",
            last_answer(events) or answer,
        ),
        extra={"root": {k: v for k, v in root.items() if k not in ("inputs", "outputs")}},
    )
    session = meta.get("thread_id") or meta.get("session_id")
    return Imported(IMPORTER.name, body, trace_id=trace_id, session_id=session, label=trace_id)


def _in_order(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The runs' events; a chain's uncaught error after everything its children did.

    Runs sort by `dotted_order`, so a chain comes before its children; its error happened
    when it ended, after the last of them, and is placed there with the chain's end time.
    """
    events: list[dict[str, Any]] = []
    pending: list[tuple[str, dict[str, Any]]] = []
    for run in runs:
        order = str(run.get("dotted_order") or "")
        while pending and not (order and order.startswith(pending[-1][0])):
            events.append(pending.pop()[1])
        event = _event(run)
        if event is not None and event["type"] == "error":
            event["timestamp"] = _time(run.get("end_time")) or event.get("timestamp")
            pending.append((order or "\0", event))
        elif event is not None:
            events.append(event)
    events.extend(event for _, event in reversed(pending))
    return events


def _extra(run: dict[str, Any]) -> dict[str, Any]:
    value = run.get("extra")
    return obj(value)


def _where(run: dict[str, Any]) -> dict[str, Any]:
    start = parse_time_key(_time(run.get("start_time")))
    end = parse_time_key(_time(run.get("end_time")))
    return {
        "timestamp": _time(run.get("start_time")),
        "duration_ms": round((end - start) * 1000, 3) if end >= start > 0 else None,
        "parent": run.get("parent_run_id"),
    }


_KEPT = ("id", "name", "tags", "total_tokens", "total_cost", "status", "extra")


def _event(run: dict[str, Any]) -> dict[str, Any] | None:
    kind = run.get("run_type")
    extra = {k: run[k] for k in _KEPT if run.get(k) not in (None, [], {})}
    if kind == "llm":
        inputs = obj(run.get("inputs"))
        content, calls, model = _llm_output(run.get("outputs"))
        return model_event(
            model or _model(run, inputs), _llm_input(inputs), content, calls,
            error=None, usage=_usage(run), tools=_offered(run), extra=extra, **_where(run),
        )  # fmt: skip
    if kind == "tool":
        result, err = _tool_output(run.get("outputs"))
        err = _error(run["error"]) if run.get("error") else err
        return tool_event(
            str(run.get("name")), _tool_call_id(run), _tool_args(run.get("inputs")),
            result, error=err, extra=extra, **_where(run),
        )  # fmt: skip
    if run.get("error") and kind in _RUN_TYPES:
        return error_event(_error(run["error"]), extra=extra, **_where(run))
    return None


def _usage(run: dict[str, Any]) -> dict[str, Any] | None:
    """Token counts: the SDK wrappers' `outputs.usage_metadata`, the provider's `usage`, a
    LangChain message's `usage_metadata`, else the run's own `prompt_tokens`/... columns."""
    outputs = obj(run.get("outputs"))
    generations = outputs.get("generations")
    first = generations[0] if isinstance(generations, list) and generations else None
    first = first[0] if isinstance(first, list) and first else first
    kwargs = obj(obj(obj(first).get("message")).get("kwargs"))
    for found in (
        outputs.get("usage_metadata"),
        outputs.get("usage"),
        kwargs.get("usage_metadata"),
    ):
        if isinstance(found, dict) and found:
            return found
    flat = {k: run[k] for k in _TOKENS if isinstance(run.get(k), int)}
    return flat or None


_TOKENS = ("prompt_tokens", "completion_tokens", "total_tokens")


def _error(text: Any) -> dict[str, str]:
    """LangChain stores `repr(exc)` + the traceback: its last line is `Type: message`."""
    lines = [line for line in str(text).strip().splitlines() if line.strip()]
    if len(lines) > 1 and "Traceback (most recent call last)" in str(text):
        return error(lines[-1].strip())
    return error(text)


def _tool_output(outputs: Any) -> tuple[Any, dict[str, str] | None]:
    """A tool run's output; a LangChain ToolMessage yields its content (status error: an error)."""
    if not isinstance(outputs, dict):
        return ABSENT, None
    output = outputs.get("output", outputs)
    message = tool_message_result(output)
    if message is not None:
        return message[0], message[1]
    return result_value(output), None


def _model(run: dict[str, Any], inputs: dict[str, Any]) -> str | None:
    extra = _extra(run)
    params = obj(extra.get("invocation_params"))
    meta = obj(extra.get("metadata"))
    model = params.get("model") or params.get("model_name") or meta.get("ls_model_name")
    return str(model or inputs.get("model")) if (model or inputs.get("model")) else None


def _offered(run: dict[str, Any]) -> list[Any] | None:
    """The tool definitions the model was offered: LangChain's tracer records the tools a chat
    model was bound to (`bind_tools`) among its `invocation_params`, as the provider's API
    takes them."""
    tools = obj(_extra(run).get("invocation_params")).get("tools")
    return list(tools) if isinstance(tools, list) and tools else None


def _llm_input(inputs: dict[str, Any]) -> list[dict[str, Any]]:
    raw = inputs.get("messages")
    if isinstance(raw, list) and raw and isinstance(raw[0], list):
        raw = raw[0]  # LangChain batches: one list of messages per prompt
    if raw is None and isinstance(inputs.get("prompts"), list):
        raw = [{"role": "user", "content": p} for p in inputs["prompts"]]
    return messages(raw or [])


def _llm_output(outputs: Any) -> tuple[str | None, list[dict[str, Any]], str | None]:
    """OpenAI completions (`choices`) or LangChain results (`generations`)."""
    if not isinstance(outputs, dict):
        return None, [], None
    if isinstance(outputs.get("choices"), list) and outputs["choices"]:
        msg = message(outputs["choices"][0].get("message") or {})
        return text_of(msg.get("content")), msg.get("tool_calls") or [], outputs.get("model")
    generations = outputs.get("generations")
    if isinstance(generations, list) and generations:
        first = generations[0][0] if isinstance(generations[0], list) else generations[0]
        msg = message(first.get("message") or {"role": "assistant", "content": first.get("text")})
        meta = (first.get("message") or {}).get("kwargs", {}).get("response_metadata", {})
        return text_of(msg.get("content")), msg.get("tool_calls") or [], meta.get("model_name")
    return None, [], None


def _tool_args(inputs: Any) -> dict[str, Any]:
    if isinstance(inputs, dict) and set(inputs) == {"input"}:
        return arguments(inputs["input"])
    return arguments(inputs)


def _tool_call_id(run: dict[str, Any]) -> str | None:
    extra = _extra(run)
    meta = obj(extra.get("metadata"))
    return opt_id(extra.get("tool_call_id") or meta.get("tool_call_id"))


def _text_input(inputs: Any) -> str | None:
    if isinstance(inputs, dict):
        for key in ("input", "question", "query", "messages"):
            value = inputs.get(key)
            if isinstance(value, str):
                return value
    return inputs if isinstance(inputs, str) else None


def _text_output(outputs: Any) -> str | None:
    if isinstance(outputs, dict):
        for key in ("output", "answer", "result"):
            if isinstance(outputs.get(key), str):
                return str(outputs[key])
    return outputs if isinstance(outputs, str) else None
