"""`corpus report` and `--html`: one self-contained file, the same bytes for the same input,
untrusted text kept as data, the gate's verdict when a base is given."""

from __future__ import annotations

import base64
import gzip
import json
import re
from pathlib import Path
from typing import Any

import yaml

from corpus_tool.testing.scripted_model import ModelScript
from tests.conftest import EXAMPLES, Cli
from tests.replay.live_corpus import EDITED, live_corpus, provider
from tests.report.conftest import HOSTILE, hostile_results, regressed

__all__ = ["provider"]  # the fixture, used by name


def _embedded(page: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The page's list data and its (gzipped) per-case details, as the page's script reads them."""
    head = re.search(r'<script type="application/json" id="head-data">(.*?)</script>', page, re.S)
    packed = re.search(r'id="detail-data">(.*?)</script>', page, re.S)
    assert head and packed
    details = json.loads(gzip.decompress(base64.b64decode(packed.group(1))))
    return json.loads(head.group(1)), details


def test_check_html_is_one_file_with_no_outside_reference(example_run: tuple[Path, Path]) -> None:
    _, html = example_run
    page = html.read_text(encoding="utf-8")
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|https?://(?!corpus-tool)", page)
    assert "default-src 'none'" in page  # the page may not fetch anything either
    head, details = _embedded(page)
    doc = json.loads(example_run[0].read_text(encoding="utf-8"))
    listed = [(c["id"], c["verdict"]) for c in head["cases"]]
    assert listed == [(c["case"], c["verdict"]) for c in doc["cases"]]  # as the run recorded
    assert [c["id"] for c in head["cases"]] == sorted(details)
    assert {c["verdict"] for c in head["cases"]} == {"passed", "waived", "known_unknown"}
    assert ["models", "gpt-4.1-2025-04-14, deepseek-chat"] in head["meta"]


def test_replay_html_lists_the_cases_its_results_document_holds(cli: Cli, tmp_path: Path) -> None:
    """`replay --html` (with and without --results): the run's cases and verdicts."""
    results, target = tmp_path / "replay.json", tmp_path / "replay.html"
    done = cli("-C", EXAMPLES / "corpus", "replay", "--results", results, "--html", target)
    assert done.code == 0, done.err
    doc = json.loads(results.read_text(encoding="utf-8"))
    head, _ = _embedded(target.read_text(encoding="utf-8"))
    assert head["title"] == f"corpus replay: {doc['corpus']}" and head["summary"] == doc["summary"]
    expected = [(c["case"], c["verdict"]) for c in doc["cases"]]
    assert [(c["id"], c["verdict"]) for c in head["cases"]] == expected
    alone = tmp_path / "alone.html"
    assert cli("-C", EXAMPLES / "corpus", "replay", "--html", alone).code == 0
    head, _ = _embedded(alone.read_text(encoding="utf-8"))
    assert [(c["id"], c["verdict"]) for c in head["cases"]] == expected


def test_report_marks_the_divergent_step_against_the_recording(
    example_run: tuple[Path, Path],
) -> None:
    _, details = _embedded(example_run[1].read_text(encoding="utf-8"))
    doc = json.loads(example_run[0].read_text(encoding="utf-8"))
    (recorded,) = [c["divergence"] for c in doc["cases"] if c["case"] == "refund-wrong-unit"]
    waived = details["refund-wrong-unit"]
    marked = [r for r in waived["rows"] if r.get("divergence")]
    assert len(marked) == 1 and marked[0]["change"] == "changed"
    assert marked[0]["a"]["type"] == "model_call"  # the recording's side is there to compare
    assert any(d["path"].startswith("$.request.messages") for d in marked[0]["diff"])
    # the row the replay's divergence names (its seq), with the field the replay said differs
    assert marked[0]["a"]["seq"] == recorded["expected"]["seq"]
    assert {d["path"] for d in recorded["diff"]} <= {d["path"] for d in marked[0]["diff"]}
    assert all(r["change"] == "run" for r in details["refund-success"]["rows"])


def test_report_of_the_same_results_is_the_same_bytes(
    example_run: tuple[Path, Path], tmp_path: Path, cli: Cli
) -> None:
    results, _ = example_run
    one, two = tmp_path / "one.html", tmp_path / "two.html"
    for target in (one, two):
        done = cli("-C", EXAMPLES / "corpus", "report", results, "-o", target)
        assert done.code == 0, done.err
        assert done.out == f"wrote {target} (6 case(s))\n"
    assert one.read_bytes() == two.read_bytes()


def test_untrusted_markup_stays_data(
    example_run: tuple[Path, Path], tmp_path: Path, cli: Cli
) -> None:
    hostile = hostile_results(example_run[0], tmp_path / "hostile.json")
    target = tmp_path / "hostile.html"
    assert cli("report", hostile, "-o", target).code == 0
    page = target.read_text(encoding="utf-8")
    assert page.count("</script>") == 3  # the page's own three script elements, no more
    assert "onerror" not in page.split('id="head-data">')[0]
    _, details = _embedded(page)
    assert details["refund-success"]["output"] == HOSTILE  # kept, as text


def test_report_with_base_is_the_gate_and_names_the_regression(
    example_run: tuple[Path, Path], tmp_path: Path, cli: Cli
) -> None:
    results, _ = example_run
    head_doc = regressed(results, tmp_path / "head.json")
    target = tmp_path / "gate.html"
    done = cli("report", head_doc, "--base", results, "-o", target)
    assert done.code == 0, done.err
    head, details = _embedded(target.read_text(encoding="utf-8"))
    assert head["verdict"] == "blocked" and head["labels"] == ["base", "head"]
    row = next(c for c in head["cases"] if c["id"] == "refund-success")
    assert (row["gate"], row["blocks"]) == ("regression", True)
    assert details["refund-success"]["base_verdict"] == "passed"


def test_report_of_a_missing_or_foreign_file_is_a_one_line_error(cli: Cli, tmp_path: Path) -> None:
    code, _, err = cli("report", tmp_path / "nope.json", "-o", tmp_path / "r.html")
    assert code == 2 and err.count("\n") == 1 and "nope.json" in err
    other = tmp_path / "other.json"
    other.write_text('{"cases": []}', encoding="utf-8")
    code, _, err = cli("report", other, "-o", tmp_path / "r.html")
    assert code == 2 and "not a results document" in err and "--results FILE" in err
    assert not (tmp_path / "r.html").exists()


def test_html_under_a_file_is_a_one_line_error_and_writes_nothing(
    example_run: tuple[Path, Path], cli: Cli, tmp_path: Path
) -> None:
    """A report path no directory can be made for (its parent is a file; chmod does not stop
    root): exit 2, one line naming it, no report and no temporary file left behind."""
    results, _ = example_run
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a directory\n", encoding="utf-8")
    target = blocker / "r.html"
    cases = EXAMPLES / "corpus" / "cases"
    for args in (
        ("report", results, "-o", target),
        ("diff", cases / "refund-success", cases / "refund-wrong-unit", "--html", target),
    ):
        code, _, err = cli(*args)
        assert code == 2 and err.count("\n") == 1 and str(target) in err, (args, err)
        assert "cannot write here" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocker"]


def test_diff_html_of_two_traces_aligns_their_steps(cli: Cli, tmp_path: Path) -> None:
    cases = EXAMPLES / "corpus" / "cases"
    target = tmp_path / "diff.html"
    code, _, _ = cli(
        "diff", cases / "refund-success", cases / "refund-wrong-unit", "--html", target
    )
    assert code == 1  # the diff's own verdict: a regression
    head, details = _embedded(target.read_text(encoding="utf-8"))
    assert head["kind"] == "diff" and len(head["cases"]) == 1
    (detail,) = details.values()
    assert {r["change"] for r in detail["rows"]} >= {"changed"}


def test_diff_html_of_two_results_documents_is_each_case_a_against_b(
    example_run: tuple[Path, Path], tmp_path: Path, cli: Cli
) -> None:
    results, _ = example_run
    head_doc = regressed(results, tmp_path / "head.json")
    target = tmp_path / "diff.html"
    code, _, _ = cli("diff", results, head_doc, "--html", target)
    assert code == 0  # the same runs: no case's steps differ (only a check's verdict does)
    head, details = _embedded(target.read_text(encoding="utf-8"))
    assert head["title"].startswith("corpus diff") and head["labels"] == ["A", "B"]
    assert len(details) == 6 and all("rows" in details[c] for c in ("refund-success",))


def test_diff_html_of_yaml_results_documents_shows_the_cases_diff_read(
    example_run: tuple[Path, Path], tmp_path: Path, cli: Cli
) -> None:
    """diff takes a results document as YAML too; the report is built from what diff read."""
    results, _ = example_run
    doc = json.loads(results.read_text(encoding="utf-8"))
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    for side in (a, b):
        side.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    target = tmp_path / "diff.html"
    code, _, err = cli("diff", a, b, "--html", target)
    assert code == 0, err
    head, details = _embedded(target.read_text(encoding="utf-8"))
    assert set(details) == {c["case"] for c in doc["cases"]}
    assert head["meta"][1:3] == [["A", str(a)], ["B", str(b)]]


def test_a_failed_check_without_divergence_is_marked_at_the_step_it_names(
    example_run: tuple[Path, Path], tmp_path: Path, cli: Cli
) -> None:
    failing = regressed(example_run[0], tmp_path / "failing.json")
    target = tmp_path / "failing.html"
    assert cli("-C", EXAMPLES / "corpus", "report", failing, "-o", target).code == 0
    _, details = _embedded(target.read_text(encoding="utf-8"))
    rows = details["refund-success"]["rows"]
    marked = [r for r in rows if r.get("failing_check")]
    assert [(r["failing_check"], r["b"]["seq"]) for r in marked] == [("tools.args", 4)]
    assert {r["change"] for r in rows} == {"same"}  # the recording loaded, aligned beside it


def test_report_shows_each_waiver_in_the_state_the_run_recorded(
    example_run: tuple[Path, Path], tmp_path: Path, cli: Cli
) -> None:
    doc = json.loads(example_run[0].read_text(encoding="utf-8"))
    doc["waivers"][0].update(state="expired", expires="2020-01-01")
    doc["waivers"].append({"id": "W-9999", "state": "invalid", "problem": "no owner"})
    results, target = tmp_path / "results.json", tmp_path / "waivers.html"
    results.write_text(json.dumps(doc), encoding="utf-8")
    assert cli("report", results, "-o", target).code == 0
    head, _ = _embedded(target.read_text(encoding="utf-8"))
    shown = {w["id"]: (w["state"], w.get("owner"), w.get("problem")) for w in head["waivers"]}
    assert shown == {
        "W-0001": ("expired", "payments-team", None),
        "W-9999": ("invalid", None, "no owner"),
    }


def test_report_of_a_live_repeated_run_shows_tokens_and_passes_out_of_k(
    cli: Cli, tmp_path: Path, provider: ModelScript
) -> None:
    """`check --model live --repeat 2 --html`: the summary holds the run's model calls, tokens,
    time in the model and budget skips, the flaky count among the verdicts; each live case its
    passes out of k, its tokens, unmatched tool calls and provider errors, as the document has."""
    provider.skip_rate = 0.5  # the edited prompt skips the lookup now and then: some flaky
    root = live_corpus(tmp_path / "corpus", prompt=EDITED)
    results, target = tmp_path / "live.json", tmp_path / "live.html"
    args = ("check", "--model", "live", "--repeat", "2", "--results", results, "--html", target)
    code, out, err = cli("-C", root, *args)
    assert code in (0, 1), out + err
    doc = json.loads(results.read_text(encoding="utf-8"))
    page = target.read_text(encoding="utf-8")
    head, details = _embedded(page)
    assert head["live"] == doc["live"] and doc["live"]["model_calls"] > 0
    assert head["summary"] == doc["summary"]
    live_cases = [c for c in doc["cases"] if c.get("mode") == "live"]
    assert live_cases and all(c["k"] == 2 for c in live_cases)
    rows = {c["id"]: c for c in head["cases"]}
    for case in live_cases:
        shown = rows[case["case"]]["live"]
        assert (shown["passes"], shown["attempts"], shown["k"]) == (
            case["passes"],
            case["attempts"],
            case["k"],
        )
        assert (shown["input_tokens"], shown["output_tokens"]) == (
            case["live"]["input_tokens"],
            case["live"]["output_tokens"],
        )
        assert shown["unmatched"] == len(case["unmatched"])
        detail = details[case["case"]]["live"]
        assert detail["calls"] == case["live"]["calls"]
        assert detail["unmatched"] == case["unmatched"]
        assert detail["provider_errors"] == case["provider_errors"]
    flaky = sum(1 for c in doc["cases"] if c["verdict"] == "flaky")
    assert doc["summary"].get("flaky", 0) == flaky >= 1  # the seeded script: one case is flaky
    assert {c["verdict"] for c in head["cases"]} >= {"flaky"}  # the verdict filter offers it
    assert ".v-flaky" in page and "passed ${c.live.passes} of ${c.live.k}" in page
    assert "skipped for budget" in page and "input tokens" in page  # the summary's tiles
