"""`corpus minimize` and `corpus add --minimize`, driven as a user would, on planted incidents.

Ground truth is the script each incident was recorded from: the padding turns a test planted
must go, the turns the failure needs must stay.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from corpus_tool import ModelResponse, ToolCall
from corpus_tool.io import files
from corpus_tool.model.trace import Trace
from tests.conftest import Cli
from tests.minimize.padded import REVIEWED, corpus_at, padded_case
from tests.recording import load_module, record_incident, seqs_of


@pytest.fixture
def padded(tmp_path: Path, cli: Cli) -> tuple[Path, dict[str, Any]]:
    """A case from the example agent's padded incident, with a reviewed expected.yaml."""
    return padded_case(tmp_path, cli)


def _trace(corpus: Path, case: str) -> dict[str, Any]:
    text = (corpus / "cases" / case / "trace.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)  # type: ignore[no-any-return]


def test_minimize_padded_example_keeps_only_the_failing_turn(
    padded: tuple[Path, dict[str, Any]], cli: Cli
) -> None:
    corpus, incident = padded
    models = seqs_of(incident, type="llm_request")
    padding = {*models[:2], *seqs_of(incident, tool="check_refund")}
    padding.add(seqs_of(incident, tool="get_order")[0])
    # the refund's side effect: the agent emits it again when replayed; the trigger needs none
    (effect,) = seqs_of(incident, type="side_effect")
    failing = set(seqs_of(incident)) - padding - {effect, max(seqs_of(incident))}  # not final

    code, out, err = cli("-C", corpus, "minimize", "refund-padded", "--until", "tools.args")
    assert code == 0, err
    kept = {e["seq"] for e in _trace(corpus, "refund-padded")["events"]}
    assert kept == failing and padding.isdisjoint(kept)
    assert "keeping: check tools.args fails" in out
    assert "before: 10 events" in out and "after:  5 events" in out
    assert (corpus / "cases/refund-padded/expected.yaml").read_text() == REVIEWED
    note = _trace(corpus, "refund-padded")["source"]["minimized"]
    assert note["removed"] == sorted({*padding, effect})
    assert note["trigger"] == "check tools.args fails" and note["replays"] > 1


def test_minimized_case_validates_still_fails_and_is_stable(
    padded: tuple[Path, dict[str, Any]], cli: Cli
) -> None:
    corpus, _ = padded
    assert cli("-C", corpus, "minimize", "refund-padded", "--until", "tools.args").code == 0
    path = corpus / "cases/refund-padded/trace.yaml"
    first = path.read_bytes()

    code, out, _ = cli("-C", corpus, "validate")
    assert code == 0, out
    code, out, _ = cli("-C", corpus, "replay", "refund-padded", "--format", "json")
    case = json.loads(out)["cases"][0]
    assert code == 1 and case["verdict"] == "failed"
    assert "tools.args" in case["failed_checks"] and case["divergence"] is None

    code, out, _ = cli("-C", corpus, "minimize", "refund-padded", "--until", "tools.args")
    assert code == 0 and "nothing to remove" in out and "wrote" not in out
    assert path.read_bytes() == first
    doc = files.parse_yaml(first, path)
    assert files.dump_yaml(Trace.from_doc(doc).to_doc()).encode() == first  # byte round trip


def test_minimize_default_trigger_dry_run_writes_nothing(
    padded: tuple[Path, dict[str, Any]], cli: Cli
) -> None:
    corpus, incident = padded
    path = corpus / "cases/refund-padded/trace.yaml"
    before = path.read_bytes()
    code, out, _ = cli("-C", corpus, "minimize", "refund-padded", "--dry-run", "--format", "json")
    report = json.loads(out)
    assert code == 0 and path.read_bytes() == before
    assert report["trigger"] == "run ends submitted"  # expected.yaml's trigger
    assert report["written"] is False and report["dry_run"] is True
    assert report["before"]["events"] == 10 and report["after"]["events"] == 5
    first_failing = seqs_of(incident, type="llm_request")[2]
    # the two padding turns, and the refund's side effect (the replayed agent emits its own)
    effects = seqs_of(incident, type="side_effect")
    assert report["removed"] == [*range(1, first_failing), *effects]


def test_minimize_strict_keeps_turns_the_conversation_carries(
    padded: tuple[Path, dict[str, Any]], cli: Cli
) -> None:
    corpus, incident = padded
    calls = {e["seq"] for e in _trace(corpus, "refund-padded")["events"]} - set(
        seqs_of(incident, type="side_effect")
    )
    code, out, _ = cli(
        "-C", corpus, "minimize", "refund-padded", "--until", "tools.args", "--mode", "strict"
    )
    assert code == 0, out
    # every turn stays (each model request carries the conversation so far); only the side
    # effect the replayed agent emits itself goes
    assert {e["seq"] for e in _trace(corpus, "refund-padded")["events"]} == calls
    code, out, _ = cli(
        "-C", corpus, "minimize", "refund-padded", "--until", "tools.args", "--mode", "strict"
    )
    assert code == 0 and "nothing to remove" in out and "--mode lenient" in out


def test_minimize_budget_is_never_exceeded(padded: tuple[Path, dict[str, Any]], cli: Cli) -> None:
    corpus, _ = padded
    path = corpus / "cases/refund-padded/trace.yaml"
    before = path.read_bytes()
    code, out, _ = cli(
        "-C",
        corpus,
        "minimize",
        "refund-padded",
        "--until",
        "tools.args",
        "--max-replays",
        "4",
        "--format",
        "json",
    )
    report = json.loads(out)
    assert code == 0 and report["exhausted"] is True and report["replays"] == 4
    if report["removed"]:  # whatever it found within the budget still reproduces
        code, out, _ = cli("-C", corpus, "replay", "refund-padded", "--format", "json")
        assert code == 1 and "tools.args" in json.loads(out)["cases"][0]["failed_checks"]
    else:
        assert path.read_bytes() == before
    code, out, _ = cli("-C", corpus, "minimize", "refund-padded", "--max-replays", "4")
    assert "stopped at --max-replays" in out


def test_minimize_refuses_a_trigger_that_does_not_reproduce(cli: Cli, tmp_path: Path) -> None:
    import shutil

    from tests.conftest import EXAMPLES

    corpus = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "corpus", corpus)
    path = corpus / "cases/inventory-zero-stock/trace.yaml"
    before = path.read_bytes()
    # the example agent is the fixed one: ZeroDivisionError no longer happens
    code, out, err = cli("-C", corpus, "minimize", "inventory-zero-stock")
    assert code == 2 and out == ""
    assert "inventory-zero-stock" in err and "error ZeroDivisionError occurs" in err
    assert len(err.strip().splitlines()) == 1 and path.read_bytes() == before
    assert cli("-C", corpus, "minimize", "no-such-case").code == 2
    assert cli("-C", corpus, "minimize", "refund-success", "--until", "tools .x").code == 2


def test_minimize_refuses_to_overwrite_a_trace_edited_meanwhile(
    padded: tuple[Path, dict[str, Any]], cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from corpus_tool.commands import minimize as command

    corpus, _ = padded
    path = corpus / "cases/refund-padded/trace.yaml"
    real = command.shrink_case

    def editing(*args: Any, **kwargs: Any) -> Any:
        result = real(*args, **kwargs)
        path.write_text(path.read_text() + "# a reviewer's edit\n", encoding="utf-8")
        return result

    monkeypatch.setattr(command, "shrink_case", editing)
    code, _, err = cli("-C", corpus, "minimize", "refund-padded", "--until", "tools.args")
    assert code == 2 and "changed while it was being minimized" in err
    assert path.read_text().endswith("# a reviewer's edit\n")


# -- a failure that needs two distant events ------------------------------------------------
LEDGER = '''\
"""Reads what the model asks for; divides usage by the limit once it has both (a bug: 0)."""


def run(case_input, rt):
    seen, reply = {}, None
    for _ in range(12):
        messages = [{"role": "system", "content": "ledger"},
                    {"role": "user", "content": case_input["user_message"]}]
        reply = rt.model(messages, model="m-1")
        if not reply.tool_calls:
            break
        for call in reply.tool_calls:
            seen[call.name] = rt.tool(call.name, call.arguments)
    if "get_limit" in seen and "get_usage" in seen:
        share = seen["get_usage"]["used"] / seen["get_limit"]["limit"]
        return {"status": "succeeded", "output": f"{share:.0%} used"}
    return {"status": "succeeded", "output": reply.content if reply else None}
'''
UNRELATED = ("get_weather", "get_news", "get_time", "get_quote")


def _ask(name: str) -> ModelResponse:
    return ModelResponse(None, (ToolCall(f"id-{name}", name, {"q": name}),))


def test_add_minimize_keeps_two_distant_events_the_failure_needs(tmp_path: Path, cli: Cli) -> None:
    corpus = corpus_at(tmp_path / "corpus", "ledger:run")
    (corpus / "ledger.py").write_text(LEDGER, encoding="utf-8")
    ledger = load_module(corpus / "ledger.py", "ledger_for_recording")
    turns = [_ask("get_limit"), *map(_ask, UNRELATED), _ask("get_usage"), ModelResponse("done")]
    tools = {name: (lambda a, n=name: {"name": n}) for name in UNRELATED}
    tools |= {"get_limit": lambda a: {"limit": 0}, "get_usage": lambda a: {"used": 5}}
    incident = record_incident(
        ledger.run, turns, tools, tmp_path / "ledger.json", trace_id="t-ledger", message="usage?"
    )
    models = seqs_of(incident, type="llm_request")
    needed = {
        models[0],
        *seqs_of(incident, tool="get_limit"),
        models[5],
        *seqs_of(incident, tool="get_usage"),
        models[6],
        *seqs_of(incident, type="error"),
    }
    unrelated = {s for name in UNRELATED for s in seqs_of(incident, tool=name)}
    unrelated |= set(models[1:5])

    code, out, err = cli(
        "-C", corpus, "add", tmp_path / "ledger.json", "--id", "ledger", "--minimize", "--json"
    )
    assert code == 0, err
    report = json.loads(out)["minimized"]
    assert report["trigger"] == "error ZeroDivisionError occurs" and report["mode"] == "strict"
    kept = {e["seq"] for e in _trace(corpus, "ledger")["events"]}
    assert kept == needed  # the limit read (seq 2) and the usage read, far apart, both stay
    assert set(report["removed"]) == unrelated
    assert cli("-C", corpus, "validate").code == 0
    code, out, _ = cli("-C", corpus, "replay", "ledger", "--format", "json")
    case = json.loads(out)["cases"][0]
    assert code == 1 and "errors.forbidden" in case["failed_checks"]  # the drafted check


def test_add_minimize_refuses_when_nothing_reproduces(tmp_path: Path, cli: Cli) -> None:
    corpus = corpus_at(tmp_path / "corpus", "ledger:run")
    fixed = LEDGER.replace('seen["get_limit"]["limit"]', 'max(seen["get_limit"]["limit"], 1)')
    (corpus / "ledger.py").write_text(fixed, encoding="utf-8")
    ledger = load_module(corpus / "ledger.py", "ledger_fixed")
    turns = [_ask("get_limit"), _ask("get_usage"), ModelResponse("done")]
    tools = {"get_limit": lambda a: {"limit": 0}, "get_usage": lambda a: {"used": 5}}
    record_incident(ledger.run, turns, tools, tmp_path / "fine.json", trace_id="t-f", message="?")
    (corpus / "ledger.py").write_text(LEDGER, encoding="utf-8")  # replayed by the buggy one
    code, _, err = cli("-C", corpus, "add", tmp_path / "fine.json", "--id", "fine", "--minimize")
    assert code == 2 and "does not reproduce" in err
    assert not (corpus / "cases/fine").exists()
