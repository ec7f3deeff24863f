"""Replay through the provider doubles (an unchanged `openai` SDK agent, replay/doubles) against
replay through the Runtime (the same agent written on `rt.model` / `rt.tool`), the same cases.

The corpora hold the same copies of one recorded incident (a model call asking get_weather,
the tool call, the answer: tests/replay/provider_agents.py) and differ only in corpus.yaml's
agent.entrypoint (a third replays the agent on urllib: what the doubles cost without an SDK).
Each is checked as a user runs it (`corpus check -n 1`, a fresh process, validation cached),
interleaved, the median of --repeat runs.

The SDK's floor, beside them: the same SDK agent module, run on the same 300 case inputs in a
fresh process of its own (its import and client included) against a canned server on the
loopback (FLOOR_SERVER, another process, its time not counted) — no replay, no corpus-tool.
What that process costs is what the SDK costs the agent whatever answers it; when it alone is
over twice the Runtime path's `corpus check`, no replay can bring the SDK path under 2x. The
same process with no case (`import`: the interpreter, the SDK's import, nothing asked) parts
the SDK's import from its requests: the doubles answer through the same Runtime the Runtime
path replays on, so the SDK path costs at least the Runtime path plus the requests' part
(`floor` less `import`; the import not counted at all, as a worker may share part of it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import yaml

from bench.measure import Sample, corpus_cli, interleaved, median, run, spread

CASES = 300
AGENTS = {"runtime": "runtime_agent:run", "http": "sdk_agent:run", "raw": "raw_agent:run"}
RAW_AGENT = """
import json
import os
import urllib.request

SYSTEM = {system!r}
TOOLS = {tools!r}
RESULT = {result!r}
MODEL = {model!r}


def ask(messages):
    body = dict(model=MODEL, messages=messages, tools=TOOLS, temperature=0)
    request = urllib.request.Request(
        os.environ["OPENAI_BASE_URL"] + "/chat/completions",
        json.dumps(body).encode(),
        {{"Content-Type": "application/json"}},
    )
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)["choices"][0]["message"]


def run(case_input):
    messages = [{{"role": "system", "content": SYSTEM}},
                {{"role": "user", "content": case_input["user_message"]}}]
    for _ in range(4):
        message = ask(messages)
        if not message.get("tool_calls"):
            return {{"status": "succeeded", "output": message["content"]}}
        messages.append({{"role": "assistant", "content": None,
                         "tool_calls": message["tool_calls"]}})
        for call in message["tool_calls"]:
            messages.append({{"role": "tool", "tool_call_id": call["id"],
                             "content": json.dumps(RESULT)}})
    return {{"status": "step_limit", "output": None}}
"""
"""The same agent on the standard library's HTTP client: the doubles' own cost, no SDK's."""


FLOOR_SERVER = """
import socket, sys, threading

TOOL, ANSWER = sys.argv[1].encode(), sys.argv[2].encode()


def reply(body):
    head = b"HTTP/1.1 200 OK\\r\\nContent-Type: application/json\\r\\nContent-Length: "
    return head + str(len(body)).encode() + b"\\r\\n\\r\\n" + body


CANNED = {False: reply(TOOL), True: reply(ANSWER)}


def serve(conn):
    data = b""
    with conn:
        while True:
            while b"\\r\\n\\r\\n" not in data:
                more = conn.recv(65536)
                if not more:
                    return
                data += more
            head, _, data = data.partition(b"\\r\\n\\r\\n")
            size = 0
            for line in head.split(b"\\r\\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    size = int(value)
            while len(data) < size:
                data += conn.recv(65536)
            body, data = data[:size], data[size:]
            conn.sendall(CANNED[b'"tool_call_id"' in body])


listener = socket.create_server(("127.0.0.1", 0))
print(listener.getsockname()[1], flush=True)
while True:
    conn, _ = listener.accept()
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
"""
"""The canned provider of the floor: a tool call for a request that reports no tool result, the
answer for one that does; the same bytes every time, HTTP/1.1 kept alive."""
FLOOR_DRIVER = """
import json, os, sys
sys.path.insert(0, os.getcwd())
import sdk_agent

cases, question, answer = int(sys.argv[1]), sys.argv[2], sys.argv[3]
for _ in range(cases):
    if sdk_agent.run({"user_message": question}) != {"status": "succeeded", "output": answer}:
        sys.exit("the SDK agent did not get the canned answer")
"""
"""The SDK agent as the worker runs it, each case's input in turn, nothing of corpus-tool."""


def _canned() -> tuple[str, str]:
    """The chat completions the canned server answers: the recorded tool call, the answer."""
    from tests.replay.provider_agents import ANSWER, MODEL

    def completion(message: dict[str, object], finish: str) -> str:
        choice = {"index": 0, "message": message, "finish_reason": finish}
        usage = {"prompt_tokens": 61, "completion_tokens": 17, "total_tokens": 78}
        body = {"id": "chatcmpl-floor", "object": "chat.completion", "created": 1748772000}
        return json.dumps({**body, "model": MODEL["openai"], "choices": [choice], "usage": usage})

    call = {"id": "call_w1", "type": "function"}
    call["function"] = {"name": "get_weather", "arguments": '{"city": "Paris"}'}  # type: ignore[assignment]
    asking = {"role": "assistant", "content": None, "tool_calls": [call]}
    return completion(asking, "tool_calls"), completion(
        {"role": "assistant", "content": ANSWER}, "stop"
    )


@contextmanager
def canned_server(work: Path) -> Iterator[str]:
    """The canned server in its own process for the block: its base URL."""
    script = work / "http-floor-server.py"
    script.write_text(FLOOR_SERVER, encoding="utf-8")
    server = subprocess.Popen(
        [sys.executable, str(script), *_canned()], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        yield f"http://127.0.0.1:{int(server.stdout.readline())}/v1"
    finally:
        server.kill()
        server.wait()


def floor_step(work: Path, corpus: Path, base_url: str, cases: int, env: dict[str, str]) -> Sample:
    """One run of the SDK agent alone: a fresh process, `cases` inputs, the canned server."""
    from tests.replay.provider_agents import ANSWER, QUESTION

    driver = work / "http-floor-driver.py"
    driver.write_text(FLOOR_DRIVER, encoding="utf-8")
    keys = {"OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "sk-bench-not-a-key"}
    argv = [sys.executable, str(driver), str(cases), QUESTION, ANSWER]
    return run(argv, corpus, {**env, **keys})


def http_corpora(work: Path, cases: int, env: dict[str, str]) -> dict[str, Path]:
    """Git repositories, each a corpus of `cases` copies of the weather case: one replays the
    Runtime agent, one the openai SDK agent, one the urllib agent."""
    from tests.replay.provider_agents import MODEL, RESULT, SYSTEM, TOOLS, agent_source, incident

    seed = work / "http-seed"
    shutil.rmtree(seed, ignore_errors=True)
    run(corpus_cli("init", str(seed)), work, env)
    source = work / "weather-openai.json"
    source.write_text(json.dumps(incident("openai")), encoding="utf-8")
    run(corpus_cli("-C", str(seed), "add", str(source), "--id", "weather"), work, env)
    case = seed / "cases" / "weather"
    expected = yaml.safe_load((case / "expected.yaml").read_text(encoding="utf-8"))
    expected["status"] = "active"
    made: dict[str, Path] = {}
    for name, entrypoint in AGENTS.items():
        repo = work / f"http-{name}-{cases}"
        shutil.rmtree(repo, ignore_errors=True)
        shutil.copytree(seed, repo, ignore=shutil.ignore_patterns("weather"))
        config = yaml.safe_load((repo / "corpus.yaml").read_text(encoding="utf-8"))
        config["agent"] = {"entrypoint": entrypoint}
        (repo / "corpus.yaml").write_text(yaml.safe_dump(config, sort_keys=False), "utf-8")
        (repo / "runtime_agent.py").write_text(agent_source("runtime"), encoding="utf-8")
        (repo / "sdk_agent.py").write_text(agent_source("openai"), encoding="utf-8")
        raw = RAW_AGENT.format(system=SYSTEM, tools=TOOLS, result=RESULT, model=MODEL["openai"])
        (repo / "raw_agent.py").write_text(raw, encoding="utf-8")
        trace = (case / "trace.yaml").read_text(encoding="utf-8")
        for n in range(cases):
            target = repo / "cases" / f"weather-{n:05d}"
            target.mkdir(parents=True)
            (target / "trace.yaml").write_text(
                trace.replace("id: weather\n", f"id: {target.name}\n", 1), encoding="utf-8"
            )
            doc = {**expected, "id": target.name}
            (target / "expected.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), "utf-8")
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        made[name] = repo
    return made


def measure(work: Path, repeat: int, cases: int, env: dict[str, str]) -> dict[str, list[Sample]]:
    """`corpus check -n 1` of each corpus, `repeat` interleaved rounds (each must pass)."""
    corpora = http_corpora(work, cases, env)
    for corpus in corpora.values():  # fill the findings cache; check that every case passes
        run(corpus_cli("-C", str(corpus), "check", "-n", "1"), corpus, env)
    steps = {
        name: (lambda c=corpus: run(corpus_cli("-C", str(c), "check", "-n", "1"), c, env))
        for name, corpus in corpora.items()
    }
    with canned_server(work) as base_url:
        steps["floor"] = lambda: floor_step(work, corpora["http"], base_url, cases, env)
        steps["import"] = lambda: floor_step(work, corpora["http"], base_url, 0, env)
        steps["floor"]()  # the agent gets the canned answer on every case, or the bench stops
        return interleaved(repeat, steps)


def summary(samples: dict[str, list[Sample]]) -> tuple[dict[str, float], dict[str, object]]:
    """Median wall seconds of each path (`NAME`) and median CPU seconds, workers' included
    (`NAME_cpu`), and the detail the bench keeps."""
    detail: dict[str, object] = {f"{k}_wall_s": spread(v) for k, v in samples.items()}
    detail.update({f"{k}_cpu_s": spread(v, "cpu") for k, v in samples.items()})  # with workers'
    detail["load_average"] = [round(x, 1) for x in os.getloadavg()]
    took = {k: median(v) for k, v in samples.items()}
    took.update({f"{k}_cpu": median(v, "cpu") for k, v in samples.items()})
    return took, detail
