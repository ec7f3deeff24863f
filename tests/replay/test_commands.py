"""`corpus replay` and `corpus check` as a user runs them."""

from __future__ import annotations

import io
import json
import textwrap
from datetime import date
from pathlib import Path

import pytest
import yaml

from corpus_tool.store.corpus import Corpus
from tests.conftest import Cli
from tests.replay.conftest import CORPUS, copy_corpus, unwaived_corpus

VERDICTS = {
    "cancel-refund-span-lost": "KNOWN",
    "check-refund-timeout-retry": "PASS",
    "create-refund-lost-retry": "PASS",
    "inventory-zero-stock": "PASS",
    "refund-success": "PASS",
}


def _verdicts(out: str) -> dict[str, str]:
    return {line.split()[1]: line.split()[0] for line in out.splitlines() if "  [" in line}


def test_check_example_corpus_shows_the_waived_case_and_exits_0(cli: Cli) -> None:
    """What the README's first command promises: the shipped waiver W-0001 excuses
    refund-wrong-unit's divergence, the case shows WAIVED with the waiver, and check exits 0."""
    code, out, _ = cli("-C", str(CORPUS), "check")
    assert code == 0, out
    assert _verdicts(out) == {**VERDICTS, "refund-wrong-unit": "WAIVED"}
    line = next(x for x in out.splitlines() if x.startswith("WAIVED refund-wrong-unit"))
    assert "ModelRequest at step 1; 6 not reached" in line
    assert "waived by W-0001 (owner payments-team, expires 2099-12-31)" in line
    assert "divergence ModelRequest at step 1" in out, "a waived failure still shows why"
    assert "6 case(s): 4 passed, 0 failed, 0 error, 1 known_unknown, 0 skipped, 1 waived" in out


def test_check_example_corpus_prints_a_verdict_per_case(cli: Cli, tmp_path: Path) -> None:
    code, out, _ = cli("-C", str(unwaived_corpus(tmp_path)), "check")
    assert code == 1
    assert _verdicts(out) == {**VERDICTS, "refund-wrong-unit": "FAIL"}
    assert "divergence ModelRequest at step 1" in out
    assert "$.request.messages[0].content: recorded" in out
    assert "event sequence (- recording, + replay):" in out
    assert "6 case(s): 4 passed, 1 failed, 0 error, 1 known_unknown, 0 skipped, 0 waived" in out


def test_check_waiver_covers_only_the_checks_it_names(cli: Cli) -> None:
    code, out, _ = cli("-C", str(CORPUS), "check", "--mode", "lenient")
    assert code == 1, "lenient replay fails tools.args, which W-0001 does not name"
    assert _verdicts(out)["refund-wrong-unit"] == "FAIL"
    assert "waiver W-0001 (case refund-wrong-unit) is unused" in out


def test_check_expired_waiver_waives_nothing(cli: Cli, tmp_path: Path) -> None:
    corpus = copy_corpus(tmp_path)
    waiver = corpus / "waivers" / "W-0001.yaml"
    waiver.write_text(waiver.read_text().replace("2099-12-31", "2026-01-01"), encoding="utf-8")
    code, out, _ = cli("-C", str(corpus), "replay")
    assert code == 1
    assert _verdicts(out)["refund-wrong-unit"] == "FAIL"
    assert "waiver W-0001 (case refund-wrong-unit) expired on 2026-01-01: it waives nothing" in out


def test_check_results_document_is_stable_json(cli: Cli, tmp_path: Path) -> None:
    target = tmp_path / "results.json"
    code, out, _ = cli("-C", str(CORPUS), "check", "--format", "json", "--results", str(target))
    doc = json.loads(out)
    assert code == 0
    assert json.loads(target.read_text(encoding="utf-8"))["cases"] == doc["cases"]
    assert doc["schema_version"] == 1 and doc["command"] == "check"
    assert doc["summary"] == {
        "total": 6,
        "passed": 4,
        "failed": 0,
        "error": 0,
        "known_unknown": 1,
        "skipped": 0,
        "waived": 1,
    }
    wrong = next(c for c in doc["cases"] if c["case"] == "refund-wrong-unit")
    assert wrong["verdict"] == "waived" and wrong["waived_by"] == ["W-0001"]
    [waiver] = doc["waivers"]
    assert (waiver["id"], waiver["state"], waiver["owner"]) == ("W-0001", "active", "payments-team")
    # the run stopped at its first model call: nothing the agent did contradicts a check,
    # and every check it could not get to is not reached rather than failed
    assert wrong["failed_checks"] == ["replay.divergence"]
    assert wrong["not_reached"] == [
        "tools.required",
        "tools.args",
        "side_effects.count",
        "terminal.status",
        "output.contains",
        "output.not_contains",
    ]
    outcomes = {c["name"]: c["outcome"] for c in wrong["checks"]}
    assert outcomes["tools.max_calls"] == "passed", "0 calls, and the recording answers 1"
    assert wrong["divergence"]["kind"] == "ModelRequest"
    assert wrong["divergence"]["stopped"] is True
    assert set(wrong) >= {"case", "verdict", "failed_checks", "divergence", "duration_ms"}
    assert doc["findings"] == []


def test_replay_selected_case_passes_with_exit_zero(cli: Cli) -> None:
    code, out, _ = cli("-C", str(CORPUS), "replay", "refund-success", "inventory-zero-stock")
    assert code == 0
    assert "2 case(s): 2 passed" in out


def test_replay_unknown_case_is_a_usage_error(cli: Cli) -> None:
    code, _, err = cli("-C", str(CORPUS), "replay", "no-such-case")
    assert code == 2
    assert "no such case: no-such-case" in err


def test_replay_writes_junit(cli: Cli, tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    code, _, _ = cli("-C", str(unwaived_corpus(tmp_path)), "replay", "--junit", str(junit))
    text = junit.read_text(encoding="utf-8")
    assert code == 1
    assert 'tests="6" failures="1" errors="0" skipped="1"' in text
    assert '<failure message="FAIL  refund-wrong-unit' in text
    assert (
        '<property name="not_reached" value="tools.required tools.args side_effects.count '
        'terminal.status output.contains output.not_contains" />' in text
    )
    assert "check tools.args failed" not in text, "not reached is no failure"


def test_replay_junit_marks_a_waived_case_skipped_with_its_waiver(cli: Cli, tmp_path: Path) -> None:
    import xml.etree.ElementTree as ElementTree

    junit = tmp_path / "junit.xml"
    code, _, _ = cli("-C", str(CORPUS), "replay", "--junit", str(junit))
    assert code == 0
    suite = ElementTree.parse(junit).getroot()
    assert (suite.get("failures"), suite.get("skipped")) == ("0", "2")
    case = next(c for c in suite.iter("testcase") if c.get("name") == "refund-wrong-unit")
    skipped = case.find("skipped")
    assert skipped is not None and case.find("failure") is None
    assert "waived by W-0001 (owner payments-team, expires 2099-12-31)" in skipped.get(
        "message", ""
    )
    assert "divergence ModelRequest at step 1" in (skipped.text or "")


def test_replay_mode_override_reaches_every_case(cli: Cli) -> None:
    code, out, _ = cli("-C", str(CORPUS), "replay", "refund-wrong-unit", "--mode", "lenient")
    assert code == 1
    assert "[lenient]" in out
    assert "failed: tools.args" in out, "lenient replays past the prompt; the amount is wrong"


def test_check_reports_retired_and_archive_cases_without_failing(cli: Cli, tmp_path: Path) -> None:
    corpus = copy_corpus(tmp_path)
    _edit(corpus / "cases/refund-wrong-unit/expected.yaml", status="retired")
    _edit(corpus / "cases/refund-success/expected.yaml", tier="archive")
    code, out, _ = cli("-C", str(corpus), "check")
    assert code == 0, out
    assert "(retired)" in out and "(tier archive)" in out
    assert "2 skipped" in out


def test_check_tier_selects_cases(cli: Cli, tmp_path: Path) -> None:
    corpus = copy_corpus(tmp_path)
    _edit(corpus / "cases/refund-success/expected.yaml", tier="full")
    code, out, _ = cli("-C", str(corpus), "replay", "--tier", "full")
    assert code == 0
    assert "1 case(s): 1 passed" in out


def test_check_without_entrypoint_is_a_usage_error(cli: Cli, tmp_path: Path) -> None:
    corpus = copy_corpus(tmp_path)
    config = corpus / "corpus.yaml"
    lines = config.read_text(encoding="utf-8").splitlines(keepends=True)
    config.write_text("".join(x for x in lines if "entrypoint" not in x), encoding="utf-8")
    code, _, err = cli("-C", str(corpus), "check")
    assert code == 2
    assert "no agent.entrypoint" in err and err[-1] == "\n" and err.count("\n") == 1


def test_check_broken_entrypoint_import_is_one_line(cli: Cli, tmp_path: Path) -> None:
    corpus = copy_corpus(tmp_path, "missing_agent.mod:run")
    code, _, err = cli("-C", str(corpus), "replay", "refund-success")
    assert code == 2
    assert "cannot import missing_agent.mod" in err and err.count("\n") == 1


def test_replay_repeat_reports_a_nondeterministic_agent(cli: Cli, tmp_path: Path) -> None:
    corpus = copy_corpus(tmp_path, "flaky_agent:run")
    (corpus / "flaky_agent.py").write_text(
        textwrap.dedent(
            """
            import random

            def run(case_input, rt):
                reply = rt.model([{"role": "user", "content": "x"}])
                return {"status": "succeeded", "output": str(random.random())}
            """
        ),
        encoding="utf-8",
    )
    args = ["-C", str(corpus), "replay", "check-refund-timeout-retry", "--mode", "lenient"]
    code, out, _ = cli(*args, "--repeat", "3")
    assert code == 1
    assert "nondeterministic across --repeat" in out


def test_replay_imports_each_corpus_agent_without_leaking(cli: Cli, tmp_path: Path) -> None:
    outputs = {}
    for name in ("one", "two"):
        corpus = copy_corpus(tmp_path / name, "shared_name.agent:run")
        (corpus / "shared_name").mkdir()
        (corpus / "shared_name" / "agent.py").write_text(
            f"def run(case_input, rt):\n    return {{'status': 'failed', 'output': {name!r}}}\n",
            encoding="utf-8",
        )
        _, out, _ = cli("-C", str(corpus), "replay", "refund-success", "--format", "json")
        outputs[name] = json.loads(out)["cases"][0]["divergence"]["message"]
    assert "unused" in outputs["one"] and "unused" in outputs["two"]
    import sys

    assert "shared_name" not in sys.modules, "the agent's modules are dropped after the run"


def test_check_counts_validation_findings(cli: Cli, tmp_path: Path) -> None:
    corpus = copy_corpus(tmp_path)
    _edit(corpus / "cases/refund-success/expected.yaml", owner="")
    code, out, _ = cli("-C", str(corpus), "check")
    assert code == 1
    assert "validation finding(s)" in out
    assert "ERROR refund-success" in out


def _edit(path: Path, **changes: str) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data.update(changes)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


class _Terminal(io.StringIO):
    """Captured output that says it is a terminal, so check draws its progress bar."""

    def isatty(self) -> bool:
        return True


def test_replay_progress_on_a_terminal_keeps_the_verdict_lines(example: Corpus) -> None:
    from corpus_tool.check.run import ReplayOptions
    from corpus_tool.commands.replay import replay
    from corpus_tool.replay.runner import RunOptions

    out = _Terminal()
    code = replay(example, ReplayOptions(RunOptions()), out, date.today())
    text = out.getvalue()
    assert code == 0
    assert "PASS  refund-success" in text and "WAIVED refund-wrong-unit" in text
    assert "6 case(s): 4 passed" in text


def test_results_document_fits_its_schema(cli: Cli) -> None:
    # the schema itself (valid 2020-12, every field described): tests/io/test_schemas.py
    from jsonschema import Draft202012Validator

    from corpus_tool.io import schema

    document = schema.load_schema("results")
    _, out, _ = cli("-C", str(CORPUS), "check", "--format", "json", "--repeat", "2")
    errors = [e.message for e in Draft202012Validator(document).iter_errors(json.loads(out))]
    assert errors == []


def test_waiver_may_name_the_replay_checks(cli: Cli, tmp_path: Path) -> None:
    import datetime

    corpus = copy_corpus(tmp_path)
    expires = datetime.date.today() + datetime.timedelta(days=30)
    (corpus / "waivers/W-0001.yaml").write_text(
        "schema_version: 1\nid: W-0001\nkind: check\ncase: refund-wrong-unit\n"
        "checks: [replay.divergence, replay.determinism]\n"
        "reason: re-recording with prompt refund-v13\nowner: payments-team\n"
        f"expires: '{expires.isoformat()}'\n",
        encoding="utf-8",
    )
    code, out, _ = cli("-C", str(corpus), "validate")
    assert code == 0, out
    waiver = corpus / "waivers/W-0001.yaml"
    waiver.write_text(waiver.read_text().replace("replay.determinism", "replay.speed"))
    code, out, _ = cli("-C", str(corpus), "validate")
    assert code == 1 and "unknown check replay.speed; known: all, errors." in out


def test_check_parses_each_case_file_once(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from collections import Counter

    from corpus_tool.io import files

    parsed: Counter[str] = Counter()
    real = files.parse_yaml_spans  # parse_yaml too goes through it

    def counting(text: str | bytes, path: Path) -> tuple[object, object]:
        if CORPUS / "cases" in Path(path).parents:
            parsed[str(Path(path).relative_to(CORPUS))] += 1
        return real(text, path)

    monkeypatch.setattr(files, "parse_yaml_spans", counting)
    monkeypatch.setenv("CORPUS_CACHE_DIR", str(tmp_path / "cache"))  # cold: nothing cached yet
    code, out, _ = cli("-C", str(CORPUS), "check")
    assert code == 0 and "6 case(s): 4 passed, 0 failed" in out
    assert len(parsed) == 12, sorted(parsed)
    assert set(parsed.values()) == {1}, {k: v for k, v in parsed.items() if v != 1}
    # Run again: validation finds every case in the findings cache and its parsed documents
    # beside it (validate/documents.py), so neither it nor replay parses a case file.
    parsed.clear()
    code, again, _ = cli("-C", str(CORPUS), "check")
    assert (code, again) == (0, out)
    assert not parsed, parsed
