"""Replay through the provider doubles (an unchanged `openai` SDK agent, replay/doubles) against
replay through the Runtime (the same agent written on `rt.model` / `rt.tool`), the same cases.

The corpora hold the same copies of one recorded incident (a model call asking get_weather,
the tool call, the answer: tests/replay/provider_agents.py) and differ only in corpus.yaml's
agent.entrypoint (a third replays the agent on urllib: what the doubles cost without an SDK).
Each is checked as a user runs it (`corpus check -n 1`, a fresh process, validation cached),
interleaved, the median of --repeat runs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
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
    return interleaved(
        repeat,
        {
            name: (lambda c=corpus: run(corpus_cli("-C", str(c), "check", "-n", "1"), c, env))
            for name, corpus in corpora.items()
        },
    )


def summary(samples: dict[str, list[Sample]]) -> tuple[dict[str, float], dict[str, object]]:
    """Median seconds of each path and the detail the bench keeps."""
    detail: dict[str, object] = {f"{k}_wall_s": spread(v) for k, v in samples.items()}
    detail.update({f"{k}_cpu_s": spread(v, "cpu") for k, v in samples.items()})  # with workers'
    detail["load_average"] = [round(x, 1) for x in os.getloadavg()]
    return {k: median(v) for k, v in samples.items()}, detail
