"""`corpus diff` as a user runs it: recordings, replays and whole runs, with planted changes.

Ground truth is what each test planted: an agent variant that sends a hundredth of the refund
amount, one that rewords the final answer, a judge that answers what the test scripted.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import EXAMPLES, Cli

HALVED = '''\
"""The example agent with a planted bug: create_refund gets a hundredth of the amount."""
from examples.refund_agent import agent
from examples.refund_agent.tools import refund

_prepared = refund.prepared


def prepared(call):
    args = _prepared(call)
    if call.name == "create_refund":
        args["amount"] = args["amount"] // 100
    return args


def run(case_input, rt):
    refund.prepared = prepared
    try:
        return agent.run(case_input, rt)
    finally:
        refund.prepared = _prepared
'''
REWORDED = '''\
"""The example agent, saying the same thing in other words."""
from examples.refund_agent import agent


def run(case_input, rt):
    out = agent.run(case_input, rt)
    if isinstance(out.get("output"), str):
        out["output"] = "Done. " + out["output"].replace("has been submitted", "is submitted")
    return out
'''
JUDGES = '''\
"""Scripted judges: each answers one word, and notes what it was shown."""
import json
from pathlib import Path


def _note(request, said):
    seen = Path(__file__).with_name("judged.json")
    notes = json.loads(seen.read_text()) if seen.exists() else []
    notes.append({"case": request.case, "said": said,
                  "outputs": [request.base.terminal.output, request.head.terminal.output]})
    seen.write_text(json.dumps(notes))
    return said


def worse(request):
    return _note(request, "worse")


def wrong(request):
    return _note(request, "wrong")


def unsure(request):
    return "maybe"
'''

EXAMPLE_AGENT = "examples.refund_agent.agent:run"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A copy of the example corpus with the agent variants and the scripted judges."""
    root = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "corpus", root)
    (root / "halved.py").write_text(HALVED, encoding="utf-8")
    (root / "reworded.py").write_text(REWORDED, encoding="utf-8")
    (root / "judges.py").write_text(JUDGES, encoding="utf-8")
    with (root / "corpus.yaml").open("a", encoding="utf-8") as config:
        config.write("judges:\n")
        config.writelines(f"  {name}: judges:{name}\n" for name in ("worse", "wrong", "unsure"))
    return root


def _run(cli: Cli, corpus: Path, agent: str, out: Path, *cases: str) -> Path:
    """Replay with the given entrypoint (lenient: a changed call is looked up, not positional)."""
    config = corpus / "corpus.yaml"
    text = config.read_text(encoding="utf-8")
    start = text.index("entrypoint: ") + len("entrypoint: ")
    end = text.index(" ", start)
    config.write_text(text[:start] + agent + text[end:], encoding="utf-8")
    cli("-C", corpus, "replay", *cases, "--mode", "lenient", "--results", out)
    assert out.is_file()
    return out


def _recorded(corpus: Path, case: str, tool: str) -> dict[str, Any]:
    trace = yaml.safe_load((corpus / "cases" / case / "trace.yaml").read_text("utf-8"))
    return next(e for e in trace["events"] if e.get("tool") == tool)


def test_diff_recording_and_replay_with_changed_amount_is_a_regression(
    cli: Cli, corpus: Path, tmp_path: Path
) -> None:
    head = _run(cli, corpus, "halved:run", tmp_path / "head.json")
    refund = _recorded(corpus, "refund-success", "create_refund")
    code, out, err = cli("diff", corpus / "cases/refund-success", head, "--format", "json")
    report = json.loads(out)
    assert code == 1, err
    assert report["verdict"] == "regression"
    (change,) = report["arguments"]
    assert change["tool"] == "create_refund" and change["a_seq"] == refund["seq"]
    amount = refund["arguments"]["amount"]
    assert change["diff"] == [{"path": "$.arguments.amount", "a": amount, "b": amount // 100}]
    assert report["first_divergence"]["a_seq"] == refund["seq"]
    assert report["terminal"] == {"a": "submitted", "b": "unknown", "worse": True}
    assert {"kind": "id", "value": "R900", "text": "R900"} in report["entities_lost"]

    code, out, _ = cli("diff", corpus / "cases/refund-success/trace.yaml", head)
    assert code == 1 and out.splitlines()[2].startswith("regression: ")
    assert f"$.arguments.amount: A {amount}, B {amount // 100}" in out

    by_id = cli("-C", corpus, "diff", "refund-success", head, "--format", "json")
    assert by_id.code == 1 and json.loads(by_id.out) == report  # the case named by its id


def test_diff_a_name_that_is_neither_a_file_nor_a_case_is_refused(cli: Cli, corpus: Path) -> None:
    code, out, err = cli("-C", corpus, "diff", "refund-sucess", "refund-success")
    assert code == 2 and out == ""
    assert err.strip().endswith(
        f"refund-sucess: no such file, nor a case of that id in {corpus / 'cases'}"
    )


def test_diff_a_case_id_outside_any_corpus_is_a_missing_file(
    cli: Cli, corpus: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    trace = corpus / "cases/refund-success/trace.yaml"
    code, out, err = cli("diff", "refund-success", trace, cwd=elsewhere)
    assert code == 2 and out == ""
    assert err.strip().endswith("refund-success: no such file") and len(err.splitlines()) == 1


def test_diff_runs_differing_only_in_wording_is_benign(
    cli: Cli, corpus: Path, tmp_path: Path
) -> None:
    base = _run(cli, corpus, EXAMPLE_AGENT, tmp_path / "b.json", "refund-success")
    head = _run(cli, corpus, "reworded:run", tmp_path / "h.json", "refund-success")
    code, out, _ = cli("diff", base, head, "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["verdict"] == "benign"
    (case,) = report["cases"]
    assert case["case"] == "refund-success" and case["verdict"] == "benign"
    assert case["diff"]["output_changed"] is True and case["diff"]["steps"] == []


def test_diff_identical_runs(cli: Cli, corpus: Path, tmp_path: Path) -> None:
    agent = EXAMPLE_AGENT
    base = _run(cli, corpus, agent, tmp_path / "b.json")
    again = _run(cli, corpus, agent, tmp_path / "again.json")
    code, out, _ = cli("diff", base, again, "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["verdict"] == "identical"
    assert set(report["summary"].items()) >= {("identical", 6), ("regression", 0)}
    code, out, _ = cli("diff", corpus / "cases/refund-success", corpus / "cases/refund-success")
    assert code == 0 and "\nidentical\n" in out


def test_diff_whole_runs_gives_case_verdicts_and_the_shift(
    cli: Cli, corpus: Path, tmp_path: Path
) -> None:
    base = _run(cli, corpus, EXAMPLE_AGENT, tmp_path / "b.json")
    head = _run(cli, corpus, "halved:run", tmp_path / "h.json")
    refunding = {
        p.parent.name
        for p in (corpus / "cases").glob("*/trace.yaml")
        if "tool: create_refund" in p.read_text(encoding="utf-8")
    }
    code, out, _ = cli("diff", base, head, "--format", "json")
    report = json.loads(out)
    assert code == 1 and report["verdict"] == "regression"
    verdicts = {c["case"]: c["verdict"] for c in report["cases"]}
    assert {c for c, v in verdicts.items() if v == "regression"} == refunding
    assert {v for c, v in verdicts.items() if c not in refunding} == {"identical"}
    ended = report["shift"]["terminal"]
    assert ended["unknown"]["head"] - ended["unknown"]["base"] == len(refunding)
    assert ended["submitted"]["head"] == 0

    code, out, _ = cli("diff", base, head)
    assert code == 1 and "distribution shift" in out and "tool calls per case" in out
    code, out, _ = cli("diff", base, head, "--format", "markdown")
    assert "| case | verdict | why |" in out and "| distribution shift | base | head |" in out


def test_judge_worse_alone_is_a_warning(cli: Cli, corpus: Path, tmp_path: Path) -> None:
    base = _run(cli, corpus, EXAMPLE_AGENT, tmp_path / "b.json", "refund-success")
    head = _run(cli, corpus, "reworded:run", tmp_path / "h.json", "refund-success")
    code, out, err = cli("-C", corpus, "diff", base, head, "--judge", "worse", "--format", "json")
    assert code == 0, err
    (case,) = json.loads(out)["cases"]
    assert case["verdict"] == "warning" and case["judge"] == "worse"
    seen = json.loads((corpus / "judged.json").read_text())
    assert seen[0]["case"] == "refund-success" and seen[0]["outputs"][1].startswith("Done. ")
    code, out, _ = cli("-C", corpus, "diff", base, head, "--judge", "wrong")
    assert code == 0 and "warning" in out  # a judge alone never blocks


def test_judge_wrong_with_a_lost_entity_is_a_regression(
    cli: Cli, corpus: Path, tmp_path: Path
) -> None:
    head = _run(cli, corpus, "halved:run", tmp_path / "h.json")
    code, out, _ = cli(
        "-C",
        corpus,
        "diff",
        corpus / "cases/refund-success",
        head,
        "--judge",
        "wrong",
        "--format",
        "json",
    )
    report = json.loads(out)
    assert code == 1 and report["verdict"] == "regression" and report["judge"] == "wrong"
    assert any("the judge agrees: wrong" in r for r in report["reasons"])
    assert report["entities_lost"]


def test_judge_must_be_registered_and_answer_a_known_word(
    cli: Cli, corpus: Path, tmp_path: Path
) -> None:
    head = _run(cli, corpus, "reworded:run", tmp_path / "h.json", "refund-success")
    case = corpus / "cases/refund-success"
    code, _, err = cli("-C", corpus, "diff", case, head, "--judge", "oracle")
    assert code == 2 and "no judge named 'oracle'" in err and "worse" in err
    code, _, err = cli("-C", corpus, "diff", case, head, "--judge", "unsure")
    assert code == 2 and "answered 'maybe'" in err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"hello": 1}', "neither a trace"),
        ("{not json", "not valid JSON"),
        ("- a\n- b\n", "neither a trace"),
    ],
)
def test_diff_bad_input_is_one_line_naming_the_file(
    cli: Cli, corpus: Path, tmp_path: Path, content: str, message: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    code, out, err = cli("diff", corpus / "cases/refund-success", bad)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and str(bad) in err and message in err


def test_diff_missing_files_directories_and_results_without_runs(
    cli: Cli, corpus: Path, tmp_path: Path
) -> None:
    case = corpus / "cases/refund-success"
    code, _, err = cli("diff", case, tmp_path / "nope.json")
    assert code == 2 and "nope.json: no such file" in err
    code, _, err = cli("diff", case, tmp_path)
    assert code == 2 and "without trace.yaml" in err
    old = _run(cli, corpus, EXAMPLE_AGENT, tmp_path / "old.json")
    doc = json.loads(old.read_text())
    for entry in doc["cases"]:
        entry.pop("trajectory", None)  # a results document of an earlier version
    old.write_text(json.dumps(doc))
    code, _, err = cli("diff", old, old)
    assert code == 2 and "carries a replayed run" in err
    other = _run(cli, corpus, EXAMPLE_AGENT, tmp_path / "o.json", "refund-success")
    code, _, err = cli("diff", corpus / "cases/inventory-zero-stock", other)
    assert code == 2 and "holds no case 'inventory-zero-stock'" in err


def test_diff_ignore_drops_a_field_from_the_comparison(
    cli: Cli, corpus: Path, tmp_path: Path
) -> None:
    source = corpus / "cases/refund-success/trace.yaml"
    edited = tmp_path / "trace.yaml"
    edited.write_text(source.read_text().replace("rf-O-1001-1", "rf-O-1001-2"), encoding="utf-8")
    code, out, _ = cli("diff", source, edited, "--format", "json")
    report = json.loads(out)
    assert code == 1 and report["verdict"] == "regression"  # an argument of a write
    paths = {d["path"] for s in report["steps"] for d in s["diff"]}
    assert paths == {"$.arguments.idempotency_key", "$.idempotency_key"}
    code, out, _ = cli("diff", source, edited, "--ignore", "idempotency_key", "--format", "json")
    assert code == 0 and json.loads(out)["verdict"] == "identical"


def test_check_diff_shows_recording_against_replay_for_failing_cases(cli: Cli) -> None:
    code, out, _ = cli("-C", EXAMPLES / "corpus", "check", "--diff")
    assert code == 0, "refund-wrong-unit fails, and is waived: its diff is shown all the same"
    failing = out[out.index("\nrefund-wrong-unit:") :]
    assert "diff (recording -> replay):" in failing
    assert "regression: tool(s) no longer called: create_refund, get_order" in failing
    passing = out[: out.index("\nrefund-wrong-unit:")]
    assert "diff (recording" not in passing
