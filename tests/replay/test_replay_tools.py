"""`replay.tools`: an agent's own Python tool functions answered from the recording (issue 25).

The agent's tools module imports nothing of corpus-tool and would fail if it ran (the real
service is not there); the agent holds its tools in a dict built at import time, as agents do.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import Cli

TOOLS = textwrap.dedent(
    """
    CALLS = []

    def lookup(id, verbose=False):
        CALLS.append(id)
        raise RuntimeError("the real orders service is not reachable from a test")

    async def refund(id):
        raise RuntimeError("the real refunds service")
    """
)
AGENT = textwrap.dedent(
    """
    import asyncio
    from shop.tools import lookup, refund

    TOOLS = {"lookup": lookup, "refund": refund}

    def run(case_input, rt):
        reply = rt.model([{"role": "user", "content": case_input["user_message"]}], model="m1")
        seen = []
        for call in reply.tool_calls:
            tool = TOOLS[call.name]
            try:
                if asyncio.iscoroutinefunction(tool):
                    value = asyncio.run(tool(**call.arguments))
                else:
                    value = tool(call.arguments["id"], **case_input["context"].get("more", {}))
                seen.append(f"{call.name}: {value}")
            except Exception as err:
                seen.append(f"{call.name} failed: {err}")
        return {"status": "succeeded", "output": "; ".join(seen)}
    """
)
OUTPUT = "lookup: {'state': 'shipped'}; refund failed: PermissionDenied: refunds need a human"
INCIDENT: dict[str, Any] = {
    "schemaVersion": "1.0",
    "traceId": "t-tools-1",
    "startedAt": "2025-06-01T10:00:00Z",
    "agent": {"name": "shop", "version": "1.0"},
    "input": {"userMessage": "where is O-1001?", "context": {}},
    "events": [
        {
            "seq": 1,
            "type": "llm_request",
            "model": "m1",
            "messages": [{"role": "user", "content": "where is O-1001?"}],
            "response": {
                "content": None,
                "toolCalls": [
                    {"id": "c1", "name": "lookup", "arguments": {"id": "O-1001"}},
                    {"id": "c2", "name": "refund", "arguments": {"id": "O-1001"}},
                ],
            },
        },
        {
            "seq": 2,
            "type": "tool_call",
            "tool": "lookup",
            "callId": "c1",
            "input": {"id": "O-1001"},
            "result": {"state": "shipped"},
        },
        {
            "seq": 3,
            "type": "tool_call",
            "tool": "refund",
            "callId": "c2",
            "input": {"id": "O-1001"},
            "error": {"type": "PermissionDenied", "message": "refunds need a human"},
        },
        {"seq": 4, "type": "final", "status": "succeeded", "output": OUTPUT},
    ],
}


def tools_corpus(root: Path, cli: Cli, incident: dict[str, Any]) -> Path:
    assert cli("init", root).code == 0
    config = root / "corpus.yaml"
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    data["agent"] = {"entrypoint": "shop.agent:run"}
    data.setdefault("replay", {})["tools"] = ["shop.tools:lookup", "shop.tools:refund"]
    config.write_text(yaml.safe_dump(data), encoding="utf-8")
    (root / "shop").mkdir()
    (root / "shop/__init__.py").write_text("", encoding="utf-8")
    (root / "shop/tools.py").write_text(TOOLS, encoding="utf-8")
    (root / "shop/agent.py").write_text(AGENT, encoding="utf-8")
    path = root.parent / "incident.json"
    path.write_text(json.dumps(incident), encoding="utf-8")
    code, out, err = cli("-C", root, "add", path, "--id", "tools-case")
    assert code == 0, out + err
    return root


def replayed(cli: Cli, root: Path) -> tuple[int, dict[str, Any]]:
    code, out, err = cli("-C", root, "replay", "tools-case", "--format", "json")
    assert code in (0, 1), out + err
    return code, json.loads(out)["cases"][0]


def test_the_agents_own_tool_functions_answer_from_the_recording(tmp_path: Path, cli: Cli) -> None:
    root = tools_corpus(tmp_path / "corpus", cli, INCIDENT)
    code, case = replayed(cli, root)
    assert case["divergence"] is None, json.dumps(case)[:2000]
    assert (case["verdict"], code) == ("passed", 0)
    assert case["trajectory"]["terminal"]["output"] == OUTPUT


def test_a_changed_argument_to_a_patched_tool_is_a_tool_arguments_divergence(
    tmp_path: Path, cli: Cli
) -> None:
    incident = json.loads(json.dumps(INCIDENT))
    incident["input"]["context"] = {"more": {"verbose": True}}  # the agent passes one more
    root = tools_corpus(tmp_path / "corpus", cli, incident)
    code, case = replayed(cli, root)
    assert (case["verdict"], code) == ("failed", 1)
    assert case["divergence"]["kind"] == "ToolArguments"
    assert case["divergence"]["actual"] == {
        "tool": "lookup",
        "arguments": {"id": "O-1001", "verbose": True},
    }


def test_outside_a_case_a_patched_function_runs_its_own_code(tmp_path: Path) -> None:
    import sys

    from corpus_tool.replay.doubles.tools import patch_tools

    (tmp_path / "own_tools.py").write_text("def add(a, b=1):\n    return a + b\n", "utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        import own_tools

        held = own_tools.add
        patched = patch_tools(["own_tools:add"])
        assert [p.name for p in patched] == ["add"]
        assert held is own_tools.add
        assert (held(2), held(2, b=5)) == (3, 7)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("own_tools", None)


def test_a_tool_marked_with_the_decorator_answers_from_the_recording(
    tmp_path: Path, cli: Cli
) -> None:
    root = tools_corpus(tmp_path / "corpus", cli, INCIDENT)
    config = root / "corpus.yaml"
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    del data["replay"]["tools"]  # the decorator alone
    config.write_text(yaml.safe_dump(data), encoding="utf-8")
    marked = TOOLS.replace("def lookup", "@replayed_tool\ndef lookup").replace(
        "async def refund", "@replayed_tool\nasync def refund"
    )
    imports = "from corpus_tool.replay.doubles.tools import replayed_tool\n"
    (root / "shop/tools.py").write_text(imports + marked, encoding="utf-8")
    code, case = replayed(cli, root)
    assert case["divergence"] is None, json.dumps(case)[:2000]
    assert (case["verdict"], code) == ("passed", 0)
