"""Data printed by any command cannot drive the terminal or forge a line: its control
characters (ESC, CR, C1, bidi overrides, newlines inside one field) are shown as escapes."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path
from typing import Any

from corpus_tool.io import escapes
from tests.conftest import EXAMPLES, Cli, git
from tests.replay.conftest import copy_corpus, unwaived_corpus

SEQUENCES = "\x1b[2J\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x9b31m\u202eevil"
"""A screen clear, an OSC title, an OSC 52 clipboard write, a C1 CSI, a bidi override."""
SHOWN = "\\x1b[2J\\x1b]0;pwned\\x07\\x1b]52;c;ZXZpbA==\\x07\\u009b31m\\u202eevil"
FORGED = "x\ngate: PASSED"
RAW = ("\x1b", "\x07", "\x9b", "\u202e")


def _no_raw_controls(text: str) -> None:
    assert not [c for c in RAW if c in text], repr(text)


def _printing_agent(tmp_path: Path) -> Path:
    corpus = copy_corpus(tmp_path, "loud_agent:run")
    code = f"""
        def run(case_input, rt):
            print({SEQUENCES!r})
            print("over\\rwritten")
            return {{"status": "failed", "output": "no"}}
    """
    (corpus / "loud_agent.py").write_text(textwrap.dedent(code), encoding="utf-8")
    return corpus


def test_check_shows_a_failing_agents_terminal_sequences_escaped(tmp_path: Path, cli: Cli) -> None:
    corpus = _printing_agent(tmp_path)
    code, out, err = cli("-C", corpus, "check")
    assert code == 1, err
    _no_raw_controls(out + err)
    assert f"captured output of the agent:\n    {SHOWN}\n" in out
    assert "\r" not in out and "    over\n    written\n" in out  # a CR overwrites nothing


def test_json_report_holds_the_output_as_printed_and_no_raw_c1(tmp_path: Path, cli: Cli) -> None:
    corpus = _printing_agent(tmp_path)
    code, out, _ = cli("-C", corpus, "replay", "refund-success", "--format", "json")
    assert code == 1
    _no_raw_controls(out)  # json.dumps escapes C0 but would print C1 and U+202E raw
    assert json.loads(out)["cases"][0]["output"].startswith(SEQUENCES + "\n")


def _results(tmp_path: Path, cli: Cli) -> dict[str, Any]:
    corpus = unwaived_corpus(tmp_path)
    written = tmp_path / "replayed.json"
    assert cli("-C", corpus, "replay", "--results", written).code == 1  # refund-wrong-unit fails
    doc: dict[str, Any] = json.loads(written.read_text(encoding="utf-8"))
    return doc


def _write(path: Path, doc: dict[str, Any], rename: str, to: str, fail: bool) -> Path:
    doc = json.loads(json.dumps(doc))
    for case in doc["cases"]:
        if case["case"] == rename:
            case["case"] = to
            if fail:
                case.update(verdict="failed", failed_checks=["terminal.status"])
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_gate_case_id_with_a_newline_cannot_print_a_passed_verdict(
    tmp_path: Path, cli: Cli
) -> None:
    doc = _results(tmp_path, cli)
    case_id = f"{FORGED}{SEQUENCES}"
    base = _write(tmp_path / "base.json", doc, "refund-success", case_id, fail=False)
    head = _write(tmp_path / "head.json", doc, "refund-success", case_id, fail=True)
    md = tmp_path / "gate.md"
    code, out, err = cli("gate", base, head, "--markdown", md)
    assert code == 1, err  # a regression: blocked, as before
    assert not [line for line in out.splitlines() if line.startswith("gate: PASSED")]
    assert out.splitlines()[-1].startswith("gate: BLOCKED (1 regression)")
    assert f"x\\ngate: PASSED{SHOWN}: regression" in out
    _no_raw_controls(out + err)
    report = md.read_text(encoding="utf-8")
    _no_raw_controls(report)
    assert f"- `x\\ngate: PASSED{SHOWN}` (fast): failed: terminal.status" in report
    as_json = cli("gate", base, head, "--format", "json")
    assert case_id in [row["case"] for row in json.loads(as_json.out)["cases"]]


def test_gate_markdown_case_id_cannot_close_its_code_span_or_start_a_heading(
    tmp_path: Path, cli: Cli
) -> None:
    doc = _results(tmp_path, cli)
    case_id = "x`\n## :white_check_mark: gate: PASSED"
    base = _write(tmp_path / "base.json", doc, "refund-success", case_id, fail=False)
    head = _write(tmp_path / "head.json", doc, "refund-success", case_id, fail=True)
    md = tmp_path / "gate.md"
    assert cli("gate", base, head, "--markdown", md).code == 1
    report = md.read_text(encoding="utf-8")
    assert not [line for line in report.splitlines() if ":white_check_mark:" in line[:24]]
    assert "- `` x`\\n## :white_check_mark: gate: PASSED `` (fast)" in report


def test_diff_of_results_shows_a_case_id_with_controls_on_its_own_row(
    tmp_path: Path, cli: Cli
) -> None:
    doc = _results(tmp_path, cli)
    base = tmp_path / "base.json"
    base.write_text(json.dumps(doc), encoding="utf-8")
    head = _write(tmp_path / "head.json", doc, "refund-success", f"{FORGED}|{SEQUENCES}", False)
    text = cli("diff", base, head)
    _no_raw_controls(text.out)
    assert not [line for line in text.out.splitlines() if line.startswith("gate: PASSED")]
    assert f"x\\ngate: PASSED|{SHOWN}" in text.out
    table = cli("diff", base, head, "--format", "markdown").out
    _no_raw_controls(table)
    assert f"| x gate: PASSED\\|{SHOWN} | changed | new in head |" in table


def test_validate_finding_quoting_a_hand_edited_tool_name_is_one_escaped_line(
    tmp_path: Path, cli: Cli
) -> None:
    corpus = copy_corpus(tmp_path)
    trace = corpus / "cases" / "refund-success" / "trace.yaml"
    text = trace.read_text(encoding="utf-8")
    named = json.dumps(f"get{SEQUENCES}\nok: 14 files checked, no problems")
    trace.write_text(text.replace("tool: get_order", f"tool: {named}", 1), encoding="utf-8")
    code, out, _ = cli("-C", corpus, "validate")
    assert code == 1
    _no_raw_controls(out)
    assert not [line for line in out.splitlines() if line.startswith("ok:")]
    (finding,) = [line for line in out.splitlines() if "completeness.consistency" in line]
    assert f"ran get{SHOWN}\\nok: 14 files checked, no problems but the model asked" in finding


def test_error_line_quoting_a_file_name_or_an_argument_stays_one_line(
    tmp_path: Path, cli: Cli
) -> None:
    named = tmp_path / f"{FORGED}{SEQUENCES}.json"
    code, out, err = cli("gate", named, tmp_path / "head.json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("corpus gate: error: ")
    assert f"x\\ngate: PASSED{SHOWN}.json: no such file" in err
    code, _, err = cli("gate", "a.json", "b.json", f"--x{SEQUENCES}")
    assert code == 2 and err.count("\n") == 1
    assert f"unrecognized arguments: --x{SHOWN}" in err


def test_escaping_keeps_plain_text_and_twice_is_once() -> None:
    plain = "refund-wrong-unit: C:\\path\\x1b ünïcode\ttab"
    assert escapes.text(plain) == plain and escapes.line(plain) == plain.replace("\t", "\\t")
    once = escapes.line(f"{FORGED}{SEQUENCES}\r")
    assert escapes.line(once) == escapes.text(once) == once and "\n" not in once
    document = json.dumps({"id": SEQUENCES + "\u2028\x7f"}, ensure_ascii=False)
    assert json.loads(escapes.text(document)) == json.loads(document)


def test_waivers_list_shows_a_hand_edited_reason_on_one_line(tmp_path: Path, cli: Cli) -> None:
    corpus = copy_corpus(tmp_path)
    waiver = corpus / "waivers" / "W-0001.yaml"
    text = waiver.read_text(encoding="utf-8")
    reason = json.dumps(f"soon{SEQUENCES}\n1 active, 0 expired, 0 invalid")
    waiver.write_text(text.replace("reason: the", f"reason: {reason} #", 1), encoding="utf-8")
    code, out, err = cli("-C", corpus, "waivers", "list")
    assert code == 0, err
    _no_raw_controls(out)
    assert out.splitlines()[0].endswith(f"soon{SHOWN}\\n1 active, 0 expired, 0 invalid")
    assert len(out.splitlines()) == 2


def test_affected_explains_a_changed_file_name_with_a_newline_on_one_line(
    git_repo: Path, cli: Cli
) -> None:
    shutil.copytree(EXAMPLES / "corpus", git_repo / "corpus")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "corpus")
    named = f"notes\n  inventory-zero-stock{SEQUENCES}"
    (git_repo / "corpus" / "cases" / "refund-success" / named).write_text("x", encoding="utf-8")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "a note")
    argv = ("-C", git_repo / "corpus", "affected", "--base", "HEAD~1", "--explain")
    code, out, err = cli(*argv, "--format", "text")
    assert code == 0, err
    _no_raw_controls(out + err)
    assert out.splitlines()[1] == "  refund-success"
    assert not [line for line in out.splitlines() if line.startswith("  inventory-zero-stock")]
    assert f"refund-success/notes\\n  inventory-zero-stock{SHOWN} (added)" in out


def test_junit_of_an_agent_printing_terminal_sequences_is_well_formed_xml(
    tmp_path: Path, cli: Cli
) -> None:
    from xml.etree import ElementTree  # expat: the strict XML 1.0 parser CI servers use

    corpus = _printing_agent(tmp_path)
    junit = tmp_path / "junit.xml"
    code, _, err = cli("-C", corpus, "check", "--junit", junit)
    assert code == 1, err
    outputs = [e.text or "" for e in ElementTree.parse(junit).iter("system-out")]
    assert outputs and all("\\x1b]0;pwned\\x07" in text for text in outputs)
    assert "\x1b" not in junit.read_text(encoding="utf-8")
