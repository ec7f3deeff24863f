"""Every real sample file imports with the facts it holds, or is refused for a real gap."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from corpus_tool.cli import main
from tests.ingest.conftest import calls, load, problems


def test_otel_adk_tool_error_and_arguments(samples: Path) -> None:
    (run,) = load(samples / "otel_genai/agentevals_adk_py_v2_default_S6a.stacktrace-trimmed.json")
    body = run.body
    assert run.format == "otel-genai"
    error = {"type": "ValueError", "message": "ticker not found: XYZ"}
    assert calls(body) == [("get_stock_price", {"ticker": "XYZ"}, error)]
    assert body["input"]["user_message"] == "What is the price of XYZ?"
    assert body["terminal"]["status"] == "failed"
    assert body["recorded"]["agent"]["name"] == "stock_agent"
    assert problems(body) == []


def test_otel_legacy_batches_openllmetry_tool_and_answer(samples: Path) -> None:
    (run,) = load(samples / "otel_genai/agentevals_kagent_tempo_export_with_batches.json")
    body = run.body
    ((tool, args, result),) = calls(body)
    assert (tool, args) == ("helm_list_releases", {})
    assert "kagent-crds" in result["content"][0]["text"]
    model_calls = [e for e in body["events"] if e["type"] == "model_call"]
    assert len(model_calls) == 2  # three nested spans per call (ADK, generate_content, openai.chat)
    assert model_calls[0]["response"]["tool_calls"][0]["id"] == "call_w0eKlvnaE7S9GQJeSSs0gn05"
    assert body["terminal"]["output"].startswith("There are two Helm releases")
    assert problems(body) == []


def test_otel_jaeger_clarifying_answer(samples: Path) -> None:
    (run,) = load(samples / "otel_genai/agentevals_kagent_helm_2.jaeger.json")
    assert calls(run.body) == []
    assert run.body["input"]["user_message"] == "get me all the Helm releases"
    assert "specify the namespace" in run.body["terminal"]["output"]
    assert run.body["recorded"]["models"] == ["gpt-4.1-mini", "gpt-4.1-mini-2025-04-14"]


def test_otel_export_without_genai_spans_is_refused(
    samples: Path, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["-C", str(corpus), "add", str(samples / "otel_genai/otlp_proto_examples_trace.json")]
    )
    assert code == 2
    assert "no GenAI spans" in capsys.readouterr().err


LANGFUSE = {
    "openai-agents-2025-09-30.json": (
        [("get_weather", {"city": "Tokyo"}, "The weather in Tokyo is sunny.")],
        "The weather in Tokyo is currently sunny.",
    ),
    "microsoft-agent-2025-10-14.json": (
        [
            (
                "get_weather",
                {"location": "Portland"},
                "The weather in Portland is stormy with a high of 19°C.",
            )
        ],
        "The weather in Portland is currently stormy",
    ),
    "koog-2025-08-26.json": (
        [
            ("ByeTool", {"name": "Bob"}, "Bye my dear Bob!"),
            ("HelloTool", {"name": "Bob"}, "Hello my darling Bob!"),
        ],
        "Hello my darling Bob! And, bye my dear Bob!",
    ),
    "google-adk-2025-08-28.json": ([("say_hello", {}, {})], "Hello Langfuse"),
    "langgraph-2025-08-22.json": (
        [("Web-Search", {"query": "example"}, None)],
        'The search for "example"',
    ),
}


@pytest.mark.parametrize("name", sorted(LANGFUSE))
def test_langfuse_exports_tools_and_output(samples: Path, name: str) -> None:
    (run,) = load(samples / "langfuse" / name)
    expected_calls, output = LANGFUSE[name]
    got = calls(run.body)
    assert [(t, a) for t, a, _ in got] == [(t, a) for t, a, _ in expected_calls]
    for (_, _, result), (_, _, want) in zip(got, expected_calls, strict=True):
        if want is not None:
            assert result == want
    assert run.body["terminal"]["output"].startswith(output)
    assert problems(run.body) == []


def test_langfuse_pydantic_ai_output_tool_is_refused(
    samples: Path, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = samples / "langfuse/pydantic-ai-tools-2025-12-04.json"
    (run,) = load(path)
    assert [t for t, _, _ in calls(run.body)] == [
        "get_pun_suggestion", "get_dad_joke_suggestion", "get_one_liner_suggestion",
    ]  # fmt: skip
    assert main(["-C", str(corpus), "add", str(path)]) == 2
    err = capsys.readouterr().err
    assert "model asked for final_result" in err and "no tool_call event answers it" in err
    assert not [p for p in (corpus / "cases").iterdir() if p.is_dir()]


def test_tau_bench_runs_tool_errors_and_reward(samples: Path) -> None:
    runs = load(
        samples
        / "tau_bench/tool-calling-grok-3-0.0_range_0--1_user-grok-3-llm_0921131646.subset2.json"
    )
    assert [r.label for r in runs] == ["task-0-trial-0", "task-8-trial-0"]
    first = runs[0].body
    failing = [
        c for c in calls(first) if isinstance(c[2], dict) and c[2].get("type") == "ToolError"
    ]
    assert failing == [
        (
            "get_order_details",
            {"order_id": "#W2378156"},
            {"type": "ToolError", "message": "503 Service Unavailable"},
        )
    ]
    assert first["recorded"]["models"] == ["grok-3"]
    assert first["extra"]["reward"] == pytest.approx(0.93)
    assert problems(first) == ["start time is missing"]  # retail results carry no time at all


def test_tau_bench_airline_takes_policy_time_and_unique_call_ids(samples: Path) -> None:
    six, zero = load(samples / "tau_bench/gpt-4o-airline.subset2.json")
    assert six.body["recorded"]["started_at"] == "2024-05-15T15:00:00-05:00"
    assert calls(six.body)[0][:2] == ("get_user_details", {"user_id": "aarav_garcia_1177"})
    assert zero.body["extra"]["reward"] == 0.0
    assert problems(zero.body) == []  # gpt-4o reuses call ids across turns: made unique


def test_tau_bench_crashed_run_is_refused_with_reasons(
    samples: Path, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = (
        samples
        / "tau_bench/tool-calling-deepseek-v3-0.0_range_0-1_user-gpt-4o-human_0612073827.json"
    )
    (run,) = load(path)
    assert run.body["events"][0]["error"] == {
        "type": "EOFError",
        "message": "EOF when reading a line",
    }
    assert main(["-C", str(corpus), "add", str(path)]) == 2
    assert "start time is missing" in capsys.readouterr().err


def test_tau2_error_flag_becomes_tool_error(samples: Path) -> None:
    runs = {r.task_id: r for r in load(samples / "tau2_bench/whissle_airline_run1.subset3.json")}
    assert sorted(runs) == ["11", "46", "9"]
    nine = runs["9"].body
    assert calls(nine)[0] == (
        "get_reservation_details",
        {"reservation_id": "IFOYWZ"},
        {"type": "ToolError", "message": "Reservation IFOYWZ not found"},
    )
    assert nine["extra"]["reward_info"]["reward"] == 1.0
    assert nine["input"]["conversation"][0]["content"] == "Hi! How can I help you today?"
    assert problems(nine) == []


def test_langsmith_runs(samples: Path) -> None:
    (stream,) = load(samples / "langsmith/langsmith-sdk_langsmith_py_wrap_openai_stream.json")
    assert stream.body["terminal"]["output"] == "Howdy! How can I assist you today?"
    (js,) = load(samples / "langsmith/langsmith-sdk_langsmith_js_wrap_openai_default.json")
    assert js.body["recorded"]["models"] == ["gpt-4o-mini-2024-07-18"]
    assert js.body["input"]["user_message"] == "howdy"


def test_langsmith_tool_run_without_outputs_is_refused(
    samples: Path, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            [
                "-C",
                str(corpus),
                "add",
                str(samples / "langsmith/langsmith-fetch_sample_runs_flat.json"),
            ]
        )
        == 2
    )
    assert (
        "tool_call processToolCalls (seq 2) has neither result nor error" in capsys.readouterr().err
    )


def test_inspect_eval_archive_tools(samples: Path) -> None:
    (run,) = load(samples / "inspect_ai/log_message_deduplication.eval")
    assert calls(run.body)[:2] == [("bash", {"cmd": "ls"}, calls(run.body)[0][2])] * 1 + [
        calls(run.body)[1]
    ]
    assert [t for t, _, _ in calls(run.body)] == ["bash"] * 5
    assert "bin\nboot" in calls(run.body)[0][2]
    assert run.body["terminal"]["output"] == "done"
    assert problems(run.body) == []


def test_inspect_json_log_attachments_resolved(samples: Path) -> None:
    runs = load(samples / "inspect_ai/2025-05-12T20-28-26-04-00_security-guide.json")
    assert len(runs) == 3
    answers = [e["response"]["content"] for e in runs[2].body["events"]]
    assert not any(a.startswith("attachment://") for a in answers)


def test_inspect_tool_errors_without_requests_are_refused(samples: Path) -> None:
    (run, *_) = load(samples / "inspect_ai/log_tool_call_error.json")
    assert calls(run.body)[1] == ("bash", {}, {"type": "timeout", "message": "..."})
    assert any("answers no model request" in p for p in problems(run.body))


@pytest.mark.parametrize(
    "rel",
    [
        "otel_genai/_spec/gen-ai-input-messages.json",
        "otel_genai/agentevals_adk_py_v2_default_S6a.truth.json",
    ],
)
def test_unrecognised_file_lists_formats_tried(
    samples: Path, corpus: Path, capsys: pytest.CaptureFixture[str], rel: str
) -> None:
    assert main(["-C", str(corpus), "add", str(samples / rel)]) == 2
    err = capsys.readouterr().err
    assert "tried: native, openai-agents, langfuse, langsmith, otel-genai" in err


def test_added_sample_case_is_valid_yaml_with_source(samples: Path, corpus: Path) -> None:
    path = samples / "langfuse/koog-2025-08-26.json"
    assert main(["-C", str(corpus), "add", str(path), "--id", "koog-bye"]) == 0
    trace = yaml.safe_load((corpus / "cases/koog-bye/trace.yaml").read_text())
    assert trace["source"]["format"] == "langfuse"
    assert main(["-C", str(corpus), "validate"]) == 0
    assert json.dumps(trace)  # plain data only


FORMAT_DIRS = (
    "otel_genai", "langfuse", "langsmith", "tau_bench", "tau2_bench", "inspect_ai",
    "swe_agent", "openhands", "mcp", "agentops",
)  # fmt: skip
REFUSALS = (
    "incomplete incident",
    "no GenAI spans",
    "without its JSON-RPC envelope",  # a bare MCP CallToolResult or JSON-RPC error object
    "without the `tools/call` request",  # an MCP response alone names no tool
)


def _sample_files() -> list[str]:
    from tests.ingest.conftest import samples_dir

    root = samples_dir()
    if not root.is_dir():
        return []
    return sorted(
        str(p.relative_to(root))
        for d in FORMAT_DIRS
        for p in (root / d).glob("*")
        if p.is_file()
        and p.suffix in (".json", ".eval", ".traj")
        and not p.name.endswith(".truth.json")
    )


@pytest.mark.parametrize("rel", _sample_files() or ["(no samples)"])
def test_every_sample_imports_or_is_refused_for_a_reason(
    samples: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], rel: str
) -> None:
    root = tmp_path / "c"
    assert main(["init", str(root)]) == 0
    code = main(["-C", str(root), "add", "--all", str(samples / rel)])
    err = capsys.readouterr().err
    assert code in (0, 2) and "internal error" not in err
    if code == 0:
        assert main(["-C", str(root), "validate"]) == 0
    else:
        assert any(reason in err for reason in REFUSALS), err


def test_tau2_reconstructed_run_names_no_model_and_is_refused(samples: Path) -> None:
    (run,) = load(samples / "tau2_bench/tau2_retail_example_trajectory.RECONSTRUCTED.json")
    assert [t for t, _, _ in calls(run.body)][:2] == [
        "find_user_id_by_name_zip",
        "get_order_details",
    ]
    assert calls(run.body)[0][1:] == (
        {"first_name": "Yusuf", "last_name": "Rossi", "zip": "19122"},
        "yusuf_rossi_9620",
    )
    assert run.body["terminal"]["output"].startswith("Done! Your thermostat exchange is requested")
    assert any("names no model id" in p for p in problems(run.body))


def test_langsmith_reasoning_run_output(samples: Path) -> None:
    (run,) = load(samples / "langsmith/langsmith-sdk_langsmith_py_wrap_openai_reasoning.json")
    assert run.body["recorded"]["models"] == ["o1-mini-2024-09-12"]
    assert "Bash script" in run.body["terminal"]["output"]
    assert run.body["input"]["user_message"].startswith("Write a bash script")


def test_adk_recording_imports_what_its_truth_file_says(samples: Path) -> None:
    # agentevals ships the expected extraction beside the recording: ground truth from outside
    base = samples / "otel_genai" / "agentevals_adk_py_v2_default_S6a"
    truth = json.loads(base.with_name(base.name + ".truth.json").read_text(encoding="utf-8"))
    (turn,) = truth["turns"]
    (run,) = load(base.with_name(base.name + ".stacktrace-trimmed.json"))
    assert run.body["input"]["user_message"] == turn["user_text"]
    assert run.body["recorded"]["agent"]["name"] in turn["agents"]
    assert run.body["terminal"]["output"] == turn["final_text"]
    got = calls(run.body)
    assert [(name, args) for name, args, _ in got] == [
        (t["name"], t["args"]) for t in turn["tool_calls"]
    ]
    for (_, _, outcome), wanted in zip(got, turn["tool_calls"], strict=True):
        if wanted["is_error"]:
            assert outcome["type"] == wanted["error_type"]
        else:
            assert outcome == wanted["result"]
