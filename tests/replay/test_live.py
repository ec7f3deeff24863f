"""`--model live`: the live model answers (through the real `openai` client, against the scripted
provider on the loopback), the tools answer from the recording."""

from __future__ import annotations

import json
import shlex
import threading
from pathlib import Path

import pytest
import yaml

from corpus_tool.testing.scripted_model import ModelScript
from tests.conftest import ROOT, Cli
from tests.replay.live_corpus import EDITED, KEY, live_corpus, provider, set_case

__all__ = ["provider"]  # the fixture, used by name

LIVE_VERDICTS = {
    "cancel-refund-span-lost": "KNOWN",
    "check-refund-timeout-retry": "PASS",
    "create-refund-lost-retry": "PASS",
    "inventory-zero-stock": "PASS",
    "refund-success": "PASS",
    "refund-wrong-unit": "PASS",
}


def _verdicts(out: str) -> dict[str, str]:
    return {line.split()[1]: line.split()[0] for line in out.splitlines() if "  [" in line}


def _cases(path: Path) -> dict[str, dict[str, object]]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return {c["case"]: c for c in doc["cases"]}


def test_check_live_passes_the_unchanged_agent(
    cli: Cli, tmp_path: Path, provider: ModelScript
) -> None:
    """The unchanged example agent against the live model: every active case passes (the fixed
    refund-wrong-unit included, which recorded replay can only waive), and the run says what
    the model cost."""
    root = live_corpus(tmp_path)
    results = tmp_path / "results.json"
    code, out, err = cli("-C", root, "check", "--model", "live", "--results", results)
    assert code == 0, out + err
    assert _verdicts(out) == LIVE_VERDICTS
    assert all("[live]" in line for line in out.splitlines() if "  [" in line)
    assert "live model: " in out and " input and " in out, out
    doc = json.loads(results.read_text(encoding="utf-8"))
    assert doc["live"]["model_calls"] == len(provider.requests) > 0
    served = provider.usage  # what the provider said each answer cost
    assert doc["live"]["input_tokens"] == sum(u["prompt_tokens"] for u in served) > 0
    assert doc["live"]["output_tokens"] == sum(u["completion_tokens"] for u in served) > 0
    success = _cases(results)["refund-success"]
    calls = success["live"]["calls"]  # type: ignore[index]
    assert [c["model"] for c in calls] == ["gpt-4.1-2025-04-14"] * 3
    assert success["unmatched"] == [] and success["provider_errors"] == []


def test_prompt_edit_that_skips_a_tool_fails_naming_tools_required_and_diff_says_regression(
    cli: Cli, tmp_path: Path, provider: ModelScript
) -> None:
    """The incident-corpus example: a one-line prompt change makes the model skip get_order.
    Live replay fails the affected cases on tools.required, and `corpus diff` of recording and
    live run calls it a regression with the tool dropped."""
    root = live_corpus(tmp_path, prompt=EDITED)
    results = tmp_path / "results.json"
    code, out, _ = cli("-C", root, "check", "--model", "live", "--results", results)
    assert code == 1, out
    cases = _cases(results)
    dropped = [
        case
        for case, c in cases.items()
        if c["trajectory"]
        and "get_order" not in [e.get("tool") for e in c["trajectory"]["events"]]  # type: ignore[index]
        and case in ("refund-success", "create-refund-lost-retry", "refund-wrong-unit")
    ]
    assert len(dropped) >= 2, out  # the scripted model skips the lookup 4 times in 5
    for case in dropped:
        assert cases[case]["verdict"] == "failed"
        assert "tools.required" in cases[case]["failed_checks"]  # type: ignore[operator]
        assert f"FAIL  {case}" in out and "failed: " in out
    trace = root / "cases" / dropped[0] / "trace.yaml"
    code, out, _ = cli("diff", trace, results)
    assert "regression" in out, out
    assert "dropped get_order" in out, out


def test_same_prompt_edit_replayed_with_the_recorded_model_is_a_model_request_divergence(
    cli: Cli, tmp_path: Path
) -> None:
    """Recorded mode has no answer for a new prompt: strict replay stops at ModelRequest."""
    root = live_corpus(tmp_path, prompt=EDITED)
    code, out, _ = cli("-C", root, "replay", "refund-success", "--model", "recorded")
    assert code == 1
    assert "FAIL  refund-success" in out and "[strict]  ModelRequest at step 1" in out, out


def test_worker_never_sees_the_provider_key(
    cli: Cli, tmp_path: Path, provider: ModelScript
) -> None:
    """The key is in the grading process's environment (the factory's client uses it); the
    agent's worker environment does not hold it."""
    root = live_corpus(tmp_path)
    probe = root / "probe.py"
    probe.write_text(
        "import os\n"
        "def run(case_input, rt):\n"
        "    rt.model([{'role': 'user', 'content': 'Has my refund R901 arrived?'}], tools=[],"
        " model='gpt-4.1-2025-04-14')\n"
        f"    held = [k for k, v in os.environ.items() if k == 'OPENAI_API_KEY' or v == {KEY!r}]\n"
        "    return {'status': 'succeeded', 'output': 'held: ' + ','.join(held)}\n",
        encoding="utf-8",
    )
    _entrypoint(root, "probe:run")
    _, out, _ = cli("-C", root, "replay", "refund-success", "--model", "live", "--format", "json")
    case = json.loads(out)["cases"][0]
    assert case["trajectory"]["terminal"]["output"] == "held: ", case
    assert len(provider.requests) == 1  # the model call did go through the parent


def test_live_worker_has_no_network(cli: Cli, tmp_path: Path, provider: ModelScript) -> None:
    """An agent that opens a socket itself (here: to the provider, which is on the loopback)
    still fails the case with a Network divergence in live mode."""
    root = live_corpus(tmp_path)
    (root / "probe.py").write_text(
        "import os, socket\n"
        "from urllib.parse import urlparse\n"
        "def run(case_input, rt):\n"
        "    rt.model([{'role': 'user', 'content': 'hi R901'}], model='gpt-4.1-2025-04-14')\n"
        "    socket.create_connection(('127.0.0.1', 9), timeout=1)\n"
        "    return {'status': 'succeeded', 'output': 'reached'}\n",
        encoding="utf-8",
    )
    _entrypoint(root, "probe:run")
    code, out, _ = cli("-C", root, "replay", "refund-success", "--model", "live")
    assert code == 1
    assert "Network at step" in out, out


def _entrypoint(root: Path, entrypoint: str) -> None:
    path = root / "corpus.yaml"
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    config["agent"]["entrypoint"] = entrypoint
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")


def test_unmatched_call_placeholder_divergence_and_stub(
    cli: Cli, tmp_path: Path, provider: ModelScript
) -> None:
    """refund-wrong-unit's fixed run asks create_refund for 19900; the recording only saw 199.
    placeholder: the agent gets the placeholder and the call is listed as unmatched; divergence:
    the run stops at ToolArguments; stub: the case's stub answers and the case passes."""
    root = live_corpus(tmp_path)
    (root / "waivers" / "W-0001.yaml").unlink()  # it excuses replay.divergence
    results = tmp_path / "r.json"
    outcome = {}
    for policy in ("placeholder", "divergence", "stub"):
        set_case(root, "refund-wrong-unit", live={"unmatched": policy})
        args = ("replay", "refund-wrong-unit", "--model", "live", "--results", results)
        code, out, _ = cli("-C", root, *args)
        outcome[policy] = (code, out, _cases(results)["refund-wrong-unit"])
    code, out, case = outcome["placeholder"]
    assert code == 1 and case["verdict"] == "failed"
    [call] = case["unmatched"]  # type: ignore[misc]
    assert call["tool"] == "create_refund" and call["arguments"]["amount"] == 19900
    events = case["trajectory"]["events"]  # type: ignore[index]
    answered = next(e for e in events if e.get("seq") == call["seq"])
    assert answered["result"] == {"status": "unknown", "replay_unmatched": True}
    code, out, case = outcome["divergence"]
    assert code == 1 and case["divergence"]["kind"] == "ToolArguments", out  # type: ignore[index]
    assert "replay.live.unmatched: divergence" in out
    code, out, case = outcome["stub"]
    assert code == 0 and case["verdict"] == "passed" and case["unmatched"] == [], out


def test_bad_live_model_is_one_line_exit_2_before_any_case_runs(
    cli: Cli, tmp_path: Path, provider: ModelScript
) -> None:
    """A factory that does not import, returns no callable, or raises: one line naming
    replay.live_model in corpus.yaml, exit 2, and no case ran."""
    root = live_corpus(tmp_path)
    (root / "factories.py").write_text(
        "def not_callable():\n    return 42\n"
        "def raises():\n    raise RuntimeError('no OPENAI_API_KEY here')\n",
        encoding="utf-8",
    )
    said = {}
    for spec in ("nowhere.at_all:make", "factories:not_callable", "factories:raises"):
        path = root / "corpus.yaml"
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
        config["replay"]["live_model"] = spec
        path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        code, out, err = cli("-C", root, "replay", "--model", "live")
        assert code == 2, out + err
        assert "[live]" not in out and "PASS" not in out
        [line] = err.strip().splitlines()
        assert "corpus.yaml" in line and "replay.live_model" in line
        said[spec] = line
    assert "cannot import nowhere.at_all" in said["nowhere.at_all:make"]
    assert "returned int, not a callable" in said["factories:not_callable"]
    assert "raised RuntimeError: no OPENAI_API_KEY here" in said["factories:raises"]
    assert provider.requests == []


def test_provider_429_then_200_is_retried_and_a_provider_that_stays_down_is_an_error(
    cli: Cli, tmp_path: Path, provider: ModelScript
) -> None:
    """One 429: retried, the case passes, the attempt is on its result. A provider answering
    503 every time: each case is an error naming 503 (never a pass), and the run goes on."""
    root = live_corpus(tmp_path)
    results = tmp_path / "r.json"
    provider.fail.append(429)
    code, out, _ = cli(
        "-C", root, "replay", "refund-success", "--model", "live", "--results", results
    )
    assert code == 0, out
    case = _cases(results)["refund-success"]
    assert case["provider_errors"] == [
        {"status": 429, "message": case["provider_errors"][0]["message"]}
    ]  # type: ignore[index]
    assert "scripted status 429" in case["provider_errors"][0]["message"]  # type: ignore[index]
    assert len(provider.requests) == len(case["live"]["calls"]) + 1  # type: ignore[index]
    provider.always = 503
    args = ("replay", "refund-success", "inventory-zero-stock", "--model", "live")
    code, out, _ = cli("-C", root, *args, "--results", results)
    assert code == 1
    for name in ("refund-success", "inventory-zero-stock"):
        case = _cases(results)[name]
        assert case["verdict"] == "error"
        assert "provider failed with status 503 after 3 attempt(s)" in str(case["error"])
        assert [e["status"] for e in case["provider_errors"]] == [503, 503, 503]  # type: ignore[union-attr]
    assert out.count("ERROR ") == 2, out


@pytest.mark.parametrize("workers", ["1", "2"])  # answered in the pool's loop, on a thread
def test_a_provider_that_never_answers_is_a_timeout_retried_then_the_case_is_an_error(
    cli: Cli, tmp_path: Path, provider: ModelScript, monkeypatch: pytest.MonkeyPatch, workers: str
) -> None:
    """A provider that takes the request and never answers (the client's own timeout far off):
    each attempt is given up after replay.timeout_s, retried as a timeout, then the case is an
    error naming it; the run ends instead of hanging."""
    root = live_corpus(tmp_path)
    config_path = root / "corpus.yaml"
    config = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    config["replay"]["timeout_s"] = 1
    config_path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    monkeypatch.setenv("CORPUS_LIVE_TIMEOUT_S", "600")
    provider.stall = threading.Event()
    results = tmp_path / "r.json"
    try:
        code, out, _ = cli(
            "-C", root, "replay", "refund-success", "inventory-zero-stock", "--model", "live",
            "-n", workers,
            "--results", results,
        )  # fmt: skip
    finally:
        provider.stall.set()
    assert code == 1, out
    for name in ("refund-success", "inventory-zero-stock"):
        case = _cases(results)[name]
        assert case["verdict"] == "error"
        assert "timeout" in str(case["error"]), case["error"]
        assert [e["status"] for e in case["provider_errors"]] == ["timeout"] * 3  # type: ignore[union-attr]
    assert len(provider.requests) == 6  # per case: the first attempt and 2 retries


def test_live_from_answers_earlier_model_calls_from_the_recording(
    cli: Cli, tmp_path: Path, provider: ModelScript
) -> None:
    """--live-from 3 on refund-success: seq 1 (ask get_order) comes from the recording, the
    scripted server is asked only from seq 3 on (never the first, two-message request)."""
    root = live_corpus(tmp_path)
    results = tmp_path / "r.json"
    code, out, _ = cli(
        "-C",
        root,
        "replay",
        "refund-success",
        "--model",
        "live",
        "--live-from",
        "3",
        "--results",
        results,
    )
    assert code == 0, out
    assert len(provider.requests) == 2
    assert all(len(r["messages"]) > 2 for r in provider.requests)
    case = _cases(results)["refund-success"]
    assert case["live"]["live_from"] == 3 and len(case["live"]["calls"]) == 2  # type: ignore[index]


def test_max_model_calls_stops_starting_cases_and_says_how_many_were_skipped(
    cli: Cli, tmp_path: Path, provider: ModelScript
) -> None:
    """With one worker and a budget of one call, the first live case spends it and no other
    starts: the provider served that one case (counted by the provider, not by us), and every
    later live case is skipped, none of them already queued behind it."""
    root = live_corpus(tmp_path)
    results = tmp_path / "r.json"
    code, out, _ = cli(
        "-C", root, "check", "--model", "live", "--max-model-calls", "1", "-n", "1",
        "--results", results,
    )  # fmt: skip
    cases = _cases(results)
    skipped = [c for c in cases.values() if c["reason"] == "budget"]
    ran = [c for c in cases.values() if c["mode"] == "live"]
    assert len(ran) == 1, out
    assert len(ran[0]["live"]["calls"]) == len(provider.requests)  # type: ignore[index]
    live_cases = [c for c in cases.values() if c["verdict"] != "skipped" or c in skipped]
    assert len(skipped) == len(live_cases) - 1, out
    assert all(c["verdict"] == "skipped" for c in skipped)
    assert f"{len(skipped)} case(s) skipped: the --max-model-calls budget was spent" in out
    doc = json.loads(results.read_text(encoding="utf-8"))
    assert doc["live"]["skipped_budget"] == len(skipped)
    assert code == 0, out  # decided by the cases that ran: they passed


def test_pytest_plugin_takes_corpus_model_live(tmp_path: Path, provider: ModelScript) -> None:
    """`pytest --corpus DIR --corpus-model live`: the cases replayed against the live model."""
    from tests.replay.test_plugin import pytest_run

    root = live_corpus(tmp_path, prompt=EDITED)
    done = pytest_run("--corpus", str(root), "--corpus-model", "live", "-q", cwd=tmp_path)
    assert "[live]" in done.stdout and "tools.required" in done.stdout, done.stdout[-3000:]
    assert done.returncode == 1
    assert provider.requests


def test_repeat_reports_passes_out_of_n_and_a_case_some_attempts_pass_is_flaky(
    cli: Cli, tmp_path: Path, provider: ModelScript
) -> None:
    """--model live --repeat 6: the unchanged prompt passes 6 of 6; the edited one skips the
    lookup about half the time: flaky (exit 1), with passes out of 6 in text, JSON and JUnit;
    --min-pass-rate at or below its rate lets it pass."""
    provider.skip_rate = 0.5
    results, junit = tmp_path / "r.json", tmp_path / "j.xml"
    steady = live_corpus(tmp_path / "steady")
    args = ("replay", "refund-success", "--model", "live", "--repeat", "6", "--results", results)
    code, out, _ = cli("-C", steady, *args)
    assert code == 0, out
    case = _cases(results)["refund-success"]
    assert (case["verdict"], case["attempts"], case["passes"], case["k"]) == ("passed", 6, 6, 6)
    assert "(passed 6 of 6)" in out
    edited = live_corpus(tmp_path / "edited", prompt=EDITED)
    provider.reset()
    code, out, _ = cli("-C", edited, *args, "--junit", junit)
    case = _cases(results)["refund-success"]
    passes = case["passes"]
    assert case["verdict"] == "flaky" and 0 < passes < 6, out  # type: ignore[operator]
    assert code == 1 and "FLAKY refund-success" in out and f"(passed {passes} of 6)" in out
    assert "1 flaky" in out
    assert f'name="live.passes" value="{passes}"' in junit.read_text(encoding="utf-8")
    provider.reset()  # the same answers again: the same passes
    rate = str(passes / 6)  # type: ignore[operator]
    code, out, _ = cli("-C", edited, *args, "--min-pass-rate", rate)
    assert code == 0 and _cases(results)["refund-success"]["verdict"] == "passed", out


def test_minimize_replays_each_candidate_against_the_live_model(
    cli: Cli, tmp_path: Path, provider: ModelScript
) -> None:
    """`corpus minimize --model live`: refund-wrong-unit's fixed run asks for a refund the
    recording never answered (placeholder): no refund, so the run never ends submitted."""
    root = live_corpus(tmp_path)
    set_case(root, "refund-wrong-unit", live={"unmatched": "placeholder"})
    args = ("minimize", "refund-wrong-unit", "--model", "live", "--until", "terminal.status")
    code, out, err = cli("-C", root, *args, "--dry-run", "--format", "json")
    assert code == 0, out + err
    assert json.loads(out)["mode"] == "live"
    assert provider.requests


def test_gate_blocks_a_case_that_turned_flaky(
    cli: Cli, tmp_path: Path, provider: ModelScript
) -> None:
    """A case that passed 10 of 10 on the base and 2 of 10 on the head is a live regression the
    gate blocks (the exact test: one flaky run on one side alone proves nothing, issue 24)."""
    root = live_corpus(tmp_path)
    base, head = tmp_path / "base.json", tmp_path / "head.json"
    code, out, _ = cli("-C", root, "replay", "refund-success", "--model", "live", "--results", base)
    assert code == 0, out
    doc = json.loads(base.read_text(encoding="utf-8"))
    doc["cases"][0].update(attempts=10, passes=10, k=10)
    base.write_text(json.dumps(doc), encoding="utf-8")
    doc["cases"][0].update(verdict="flaky", attempts=10, passes=2, k=10)
    doc["summary"].update(passed=0, flaky=1)
    head.write_text(json.dumps(doc), encoding="utf-8")
    code, out, err = cli("-C", root, "gate", base, head)
    assert code == 1, out + err
    assert "refund-success" in out and "regression" in out.lower(), out


def test_live_model_calls_of_two_workers_run_at_the_same_time(
    cli: Cli, tmp_path: Path, provider: ModelScript
) -> None:
    """-n 2: the first model calls of the two workers reach the provider together (each is
    answered only once the other arrived), so one slow answer does not hold the other up."""
    import threading

    root = live_corpus(tmp_path)
    provider.together = threading.Barrier(2, timeout=60)
    # four cases: each worker holds at most two, so both have work whichever starts first
    cases = ("refund-success", "inventory-zero-stock", "create-refund-lost-retry")
    args = ("replay", *cases, "check-refund-timeout-retry", "--model", "live", "-n", "2")
    code, out, _ = cli("-C", root, *args)
    assert code == 0, out
    assert not provider.together.broken


LIVE_SECTION = "Two model sources: recorded and live"


def _section_commands(doc: Path, section: str) -> list[list[str]]:
    """The `corpus` lines of each fenced block under `## section` of `doc`, as argv lists."""
    text = doc.read_text(encoding="utf-8").split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    blocks = text.split("```")[1::2]
    found = []
    for block in blocks:
        for line in block.splitlines():
            words = shlex.split(line.split("#", 1)[0])
            if words[:1] == ["corpus"]:
                found.append(words[1:])
    return found


def test_the_live_commands_of_replay_md_run_as_written(
    cli: Cli, tmp_path: Path, provider: ModelScript
) -> None:
    """docs/replay.md's live block, line by line, in the example corpus with its live model
    (the scripted provider): each exits 0 or 1, never a usage or input error."""
    root = live_corpus(tmp_path)
    lines = _section_commands(ROOT / "docs" / "replay.md", LIVE_SECTION)
    assert len(lines) >= 3 and all(
        "live" in " ".join(words) or words[0] == "diff" for words in lines
    )
    for words in lines:
        code, out, err = cli(*words, cwd=root)
        assert code in (0, 1), f"corpus {' '.join(words)}: {err or out}"
        assert "Traceback" not in err
