"""Recorded provider errors replayed: the doubles answer a model call the provider refused with
its status and the API's own error body, the real SDK's own retry (max_retries) gets the next
recorded call, and the Runtime path raises the same refusal as a ProviderError.

The requests the doubles answered are counted by an httpx event hook on the SDK's own client
(`DefaultHttpxClient`: what the SDK saw on the wire), never by the doubles' counters."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from corpus_tool.ingest.exchanges import incident as incident_of
from corpus_tool.model.exchange import RecordedExchange
from corpus_tool.replay.doubles.agent import plain_agent
from corpus_tool.replay.doubles.server import Doubles
from corpus_tool.replay.engine import Replayed
from corpus_tool.replay.provider import ProviderError
from tests.conftest import ROOT
from tests.replaying import replay_case

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

QUESTION = "Is the bridge open?"
ANSWER = "Yes, the bridge is open until ten tonight."
MODEL = {"openai": "gpt-4o-mini-2024-07-18", "anthropic": "claude-sonnet-4-20250514"}
RATE = {"status": 429, "type": "rate_limit_error", "code": "rate_limit_exceeded"}
BAD = {"status": 400, "type": "invalid_request_error", "code": "context_length_exceeded"}


def incident(provider: str, errors: list[dict[str, Any]], answered: bool) -> dict[str, Any]:
    """One question asked again after each recorded provider error, answered at the end (when
    `answered`), else the run gave up (status failed)."""
    messages = [{"role": "user", "content": QUESTION}]
    calls = [{**e, "message": f"recorded {e['status']} refusal"} for e in errors]
    events: list[dict[str, Any]] = [
        {"type": "llm_request", "model": MODEL[provider], "messages": messages, "error": error}
        for error in calls
    ]
    if answered:
        stop = "stop" if provider == "openai" else "end_turn"
        response = {"content": ANSWER, "toolCalls": [], "finishReason": stop}
        events.append(
            {
                "type": "llm_request",
                "model": MODEL[provider],
                "messages": messages,
                "response": response,
                "usage": {"input_tokens": 9, "output_tokens": 11},
            }
        )
    final = {"type": "final", "status": "succeeded" if answered else "failed"}
    events.append({**final, "output": ANSWER if answered else f"gave up: {errors[-1]['code']}"})
    return {
        "schemaVersion": "1.0",
        "traceId": f"t-refused-{provider}",
        "startedAt": "2025-06-01T10:00:00.000Z",
        "agent": {"name": "bridge-desk", "version": "1.0"},
        "input": {"userMessage": QUESTION},
        "events": [{"seq": n, **e} for n, e in enumerate(events, 1)],
    }


def case_dir(tmp_path: Path, cli: Any, doc: dict[str, Any]) -> Path:
    root = tmp_path / "corpus"
    assert cli("init", root).code == 0
    path = tmp_path / "incident.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    added = cli("add", path, "--id", "refused", cwd=root)
    assert added.code == 0, added.err
    expected = root / "cases" / "refused" / "expected.yaml"
    loaded = yaml.safe_load(expected.read_text(encoding="utf-8"))
    expected.write_text(yaml.safe_dump({**loaded, "status": "active"}), encoding="utf-8")
    return root / "cases" / "refused"


def ask(provider: str, stream: bool, statuses: list[int]) -> str:
    """The question through the real SDK (its default retries), each answer's status kept."""
    hooks = {"response": [lambda r: statuses.append(r.status_code)]}
    sdk = openai if provider == "openai" else anthropic
    http = sdk.DefaultHttpxClient(event_hooks=hooks)  # the SDK's own transport, hooked
    messages = [{"role": "user", "content": QUESTION}]
    if provider == "openai":
        client = openai.OpenAI(http_client=http)
        asked = client.chat.completions.create(
            model=MODEL[provider], messages=messages, stream=stream
        )
        if stream:
            return "".join(c.choices[0].delta.content or "" for c in asked if c.choices)
        return str(asked.choices[0].message.content)
    messages_client = anthropic.Anthropic(http_client=http)
    found = messages_client.messages.create(
        model=MODEL[provider], max_tokens=256, messages=messages, stream=stream
    )
    if stream:
        return "".join(e.delta.text for e in found if e.type == "content_block_delta")
    return str(found.content[0].text)


def through_doubles(case: Path, run: Any) -> Replayed:
    doubles = Doubles().start()
    try:
        with pytest.MonkeyPatch.context() as env:
            for key, value in doubles.env().items():
                env.setenv(key, value)
            return replay_case(case, plain_agent(run, doubles))
    finally:
        doubles.close()


@pytest.mark.parametrize("stream", [False, True], ids=["create", "stream"])
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_recorded_429_is_retried_by_the_sdk_and_the_case_replays_strictly(
    tmp_path: Path, cli: Any, provider: str, stream: bool
) -> None:
    case = case_dir(tmp_path, cli, incident(provider, [RATE], answered=True))
    statuses: list[int] = []

    def run(case_input: dict[str, Any]) -> dict[str, Any]:
        return {"status": "succeeded", "output": ask(provider, stream, statuses)}

    replayed = through_doubles(case, run)
    assert statuses == [429, 200], replayed  # the SDK's own retry consumed the recorded refusal
    assert replayed.divergence is None and not replayed.unused
    assert (replayed.terminal.status, replayed.terminal.output) == ("succeeded", ANSWER)


@pytest.mark.parametrize("stream", [False, True], ids=["create", "stream"])
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_recorded_400_reaches_the_agent_as_the_sdks_bad_request_error(
    tmp_path: Path, cli: Any, provider: str, stream: bool
) -> None:
    case = case_dir(tmp_path, cli, incident(provider, [BAD], answered=False))
    statuses: list[int] = []
    seen: list[Any] = []

    def run(case_input: dict[str, Any]) -> dict[str, Any]:
        sdk = openai if provider == "openai" else anthropic
        try:
            ask(provider, stream, statuses)
        except sdk.BadRequestError as err:
            seen.append(err)
        return {"status": "failed", "output": f"gave up: {BAD['code']}"}

    replayed = through_doubles(case, run)
    assert statuses == [400] and len(seen) == 1
    err = seen[0]
    assert err.status_code == 400
    if provider == "openai":
        assert (err.type, err.code) == (BAD["type"], BAD["code"])
        assert err.message.endswith("recorded 400 refusal")
    else:
        assert err.body == {
            "type": "error",
            "error": {"type": BAD["type"], "message": "recorded 400 refusal"},
        }
    assert replayed.divergence is None and not replayed.unused
    assert replayed.terminal.status == "failed"


def test_the_runtime_path_raises_the_recorded_refusals_as_provider_errors(
    tmp_path: Path, cli: Any
) -> None:
    """The same recording through `rt.model`: each refusal is a ProviderError with the recorded
    status, type and code; the agent's retry gets the next recorded call; the verdict is the
    doubles' one (strict, every recorded call used)."""
    case = case_dir(tmp_path, cli, incident("openai", [RATE, {**RATE, "status": 500}], True))
    raised: list[tuple[Any, ...]] = []

    def agent(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
        for _ in range(3):
            try:
                answer = rt.model([{"role": "user", "content": QUESTION}], model=MODEL["openai"])
            except ProviderError as err:
                raised.append((err.status, err.type, err.code))
                continue
            return {"status": "succeeded", "output": answer.content}
        return {"status": "failed", "output": None}

    replayed = replay_case(case, agent)
    assert raised == [(429, RATE["type"], RATE["code"]), (500, RATE["type"], RATE["code"])]
    assert replayed.divergence is None and not replayed.unused
    assert (replayed.terminal.status, replayed.terminal.output) == ("succeeded", ANSWER)
    refused = [e for e in replayed.events if (e.extra or {}).get("error")]
    assert [e.extra["error"]["status"] for e in refused if e.extra] == [429, 500]


def test_a_429_the_recording_proxy_saw_is_written_and_replayed(tmp_path: Path, cli: Any) -> None:
    """`corpus record`'s exchanges (ingest/exchanges.py): the refused call is an llm_request
    with the API's error, so the recorded 429-then-answer replays as it went."""
    asked = {"model": MODEL["openai"], "messages": [{"role": "user", "content": QUESTION}]}
    refusal = {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}
    choice = {"message": {"role": "assistant", "content": ANSWER}, "finish_reason": "stop"}
    answer = {"model": MODEL["openai"], "choices": [choice], "usage": {"prompt_tokens": 9}}
    path = "/chat/completions"
    seen = [
        RecordedExchange("openai", path, asked, 429, {"error": {**refusal, "param": None}}),
        RecordedExchange("openai", path, asked, 200, answer, (), 1.0),
    ]
    top = {"traceId": "t-proxy", "agent": {"name": "bridge-desk", "version": "1.0"}}
    doc = incident_of(seen, top, {"status": "succeeded", "output": ANSWER})
    doc["startedAt"] = "2025-06-01T10:00:00.000Z"
    refused = doc["events"][0]
    assert refused["error"] == {"status": 429, **refusal} and "response" not in refused
    case = case_dir(tmp_path, cli, doc)
    statuses: list[int] = []

    def run(case_input: dict[str, Any]) -> dict[str, Any]:
        return {"status": "succeeded", "output": ask("openai", False, statuses)}

    replayed = through_doubles(case, run)
    assert statuses == [429, 200], replayed
    assert replayed.divergence is None and not replayed.unused


def test_serve_ends_by_itself_after_a_recorded_429_and_its_retry(tmp_path: Path, cli: Any) -> None:
    """`corpus serve` counts the replayed refusal as an answered recorded call: once the SDK's
    retry got the answer, every recorded call is answered and serve ends, the case passed."""
    case = case_dir(tmp_path, cli, incident("openai", [RATE], answered=True))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "corpus_tool", "serve", "refused"]
    served = subprocess.Popen(
        argv, cwd=case.parent.parent, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert served.stdout is not None
        urls = dict(served.stdout.readline().strip().split("=", 1) for _ in range(4))
        statuses: list[int] = []
        with pytest.MonkeyPatch.context() as patched:
            patched.setenv("OPENAI_BASE_URL", urls["OPENAI_BASE_URL"])
            patched.setenv("OPENAI_API_KEY", "any")
            assert ask("openai", False, statuses) == ANSWER
        rest, _ = served.communicate(timeout=60)  # no Ctrl-C: it ends by itself
    finally:
        if served.poll() is None:
            served.kill()
            served.wait()
    assert statuses == [429, 200]
    assert served.returncode == 0 and "PASS" in rest, rest
