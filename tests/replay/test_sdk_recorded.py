"""The whole loop for an agent written with the real `openai` or `anthropic` SDK and no
corpus-tool import: `corpus record` it against a provider (a scripted one on the loopback,
tests/replay/sdk_upstream.py), `corpus add` the incident, and replay the same agent as the team
runs it (`agent.entrypoint` naming its plain `run(case_input)`): strict replay passes, and each
mutation (a changed argument, a skipped call, a changed prompt) fails with the divergence kind
and step the same mutation written on the Runtime gets on the same recorded case."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.replay import sdk_upstream
from tests.replay.provider_agents import MODEL, MUTATIONS, QUESTION, agent_source, use_agent

pytest.importorskip("openai", reason="the agent is written with the real openai SDK")
pytest.importorskip("anthropic", reason="the agent is written with the real anthropic SDK")

ALIAS = {"openai": "gpt-4o-mini", "anthropic": "claude-sonnet-4-0"}
"""What the agent asks for; the provider answers as the dated model (sdk_upstream.DATED)."""
DRIVER = (
    "import importlib, json, sys\n"
    "sys.path.insert(0, '.')\n"
    "agent = importlib.import_module(sys.argv[1])\n"
    "print(json.dumps(agent.run({'user_message': sys.argv[2]})))\n"
)
"""How the team runs its agent by hand (and so under `corpus record`)."""


def source(kind: str, provider: str, mutation: str = "", stream: bool = False) -> str:
    """The agent's module, asking for the model by its alias, as agents do."""
    text = agent_source(kind, mutation, stream=stream, provider=provider)
    assert repr(MODEL[provider]) in text
    return text.replace(repr(MODEL[provider]), repr(ALIAS[provider]))


def checked(cli: Any, root: Path) -> tuple[int, dict[str, Any]]:
    done = cli("check", "--format", "json", cwd=root)
    assert done.code in (0, 1), done.out + done.err
    return done.code, json.loads(done.out)["cases"][0]


def divergence(case: dict[str, Any]) -> tuple[str | None, int | None]:
    found = case.get("divergence") or {}
    return found.get("kind"), found.get("step")


def recorded_corpus(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch, provider: str, stream: bool
) -> tuple[Path, dict[str, Any]]:
    """A corpus whose one case, `recorded`, is the unchanged agent's run recorded by
    `corpus record` against the provider; and the incident it wrote."""
    root = tmp_path / "corpus"
    assert cli("init", root).code == 0
    (root / "weather_agent.py").write_text(source(provider, provider, stream=stream), "utf-8")
    _, doc, asked = record_and_add(tmp_path, cli, monkeypatch, root)
    assert len(asked) == 2 and all(bool(b.get("stream")) == stream for b in asked)
    return root, doc


def record_and_add(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch, root: Path
) -> tuple[Any, dict[str, Any], list[dict[str, Any]]]:
    """`corpus record` of root's weather_agent against the scripted upstream (the team's own
    provider), then `corpus add` of the incident as case `recorded`, made active: the record
    command's result, the incident, and the bodies the upstream was asked."""
    (root / "drive.py").write_text(DRIVER, encoding="utf-8")
    incident = tmp_path / "incident.json"
    with sdk_upstream.upstream() as base, monkeypatch.context() as env:
        env.setenv("OPENAI_BASE_URL", base + "/v1")
        env.setenv("ANTHROPIC_BASE_URL", base)
        env.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        env.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
        done = cli(
            *("record", "--out", incident, "--agent-version", "1.0", "--"),
            *(sys.executable, "drive.py", "weather_agent", QUESTION),
            cwd=root,
        )
        asked = sdk_upstream.bodies()
    assert done.code == 0, done.out + done.err
    doc = json.loads(incident.read_text(encoding="utf-8"))
    assert "not-a-real-key" not in json.dumps(doc)
    added = cli("add", incident, "--id", "recorded", cwd=root)
    assert added.code == 0, added.out + added.err
    expected = root / "cases" / "recorded" / "expected.yaml"
    spec = yaml.safe_load(expected.read_text(encoding="utf-8"))
    spec["status"] = "active"
    expected.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return done, doc, asked


@pytest.mark.parametrize("stream", [False, True], ids=["create", "stream"])
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_recorded_sdk_agent_replays_unchanged_and_each_mutation_fails_as_on_the_runtime(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch, provider: str, stream: bool
) -> None:
    root, doc = recorded_corpus(tmp_path, cli, monkeypatch, provider, stream)
    tools = [e for e in doc["events"] if e["type"] == "tool_call"]
    assert [(t["tool"], t["input"], t["result"]) for t in tools] == [
        ("get_weather", {"city": "Paris"}, {"sky": "clear", "temp_c": 21})
    ]
    assert doc["events"][-1]["output"] == sdk_upstream.ANSWER

    agent = source(provider, provider, stream=stream)
    assert "corpus_tool" not in agent
    use_agent(root, agent, "weather_agent")
    code, case = checked(cli, root)
    assert (code, case["verdict"], divergence(case)) == (0, "passed", (None, None)), case

    kinds = set()
    for mutation in MUTATIONS:
        use_agent(root, source("runtime", provider, mutation), f"runtime_{mutation}")
        code, through_runtime = checked(cli, root)
        assert code == 1 and through_runtime["verdict"] == "failed", through_runtime
        kind, step = divergence(through_runtime)
        assert kind is not None, through_runtime
        kinds.add(kind)
        use_agent(root, source(provider, provider, mutation, stream), f"sdk_{mutation}")
        code, through_sdk = checked(cli, root)
        assert (code, through_sdk["verdict"]) == (1, "failed"), through_sdk
        assert divergence(through_sdk) == (kind, step), (mutation, through_sdk, through_runtime)
    assert len(kinds) == len(MUTATIONS)  # three mutations, three different divergences
