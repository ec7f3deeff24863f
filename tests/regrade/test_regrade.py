"""`corpus regrade RESULTS`: the stored runs graded against the expected.yaml files of now.

The ground truth is `corpus check` itself (a real replay in worker processes): after an edit
of expected.yaml, regrading the document of the run before the edit gives what a fresh check
gives, case for case. A corpus whose agent cannot even be imported still regrades, and a case
whose trace changed is `stale`, never graded.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
import yaml

from tests.conftest import EXAMPLES, ROOT, TEST_KEY, Cli

EXAMPLE_AGENT = "examples.refund_agent.agent:run"
AGENTS = {
    # the example agent, then two mutations of it: another final answer, another ending
    "terse.py": '''\
"""The example agent, answering with a word."""
from examples.refund_agent import agent


def run(case_input, rt):
    return {**agent.run(case_input, rt), "output": "ok"}
''',
    "escalates.py": '''\
"""The example agent, handing every conversation to a human at the end."""
from examples.refund_agent import agent


def run(case_input, rt):
    return {**agent.run(case_input, rt), "status": "needs_human"}
''',
    # what the corpus points at while regrading: an agent that cannot even be imported
    "boom.py": 'raise RuntimeError("regrade imported the agent")\n',
    "judges.py": '''\
"""Scripted judges: one answers at random, one always the same; each logs its answers."""
import json
import random
from pathlib import Path

_RANDOM = random.Random()


def _log(request, said):
    log = Path(__file__).with_name("judged.jsonl")
    with log.open("a") as out:
        out.write(json.dumps({"case": request.case, "said": said}) + "\\n")
    return said


def dice(request):
    return _log(request, _RANDOM.choice(["better", "same", "worse", "wrong"]))


def steady(request):
    return _log(request, "same")
''',
}


def _corpus(where: Path, entrypoint: str) -> Path:
    root = where / "corpus"
    shutil.copytree(EXAMPLES / "corpus", root)
    for name, text in AGENTS.items():
        (root / name).write_text(text, encoding="utf-8")
    config = root / "corpus.yaml"
    text = config.read_text(encoding="utf-8").replace(EXAMPLE_AGENT, entrypoint)
    text += "judges:\n  dice: judges:dice\n  steady: judges:steady\n"
    config.write_text(text, encoding="utf-8")
    return root


def _point(root: Path, entrypoint: str) -> None:
    config = root / "corpus.yaml"
    text = config.read_text(encoding="utf-8")
    start = text.index("entrypoint: ") + len("entrypoint: ")
    end = text.index(" ", start)
    config.write_text(text[:start] + entrypoint + text[end:], encoding="utf-8")


def _check(root: Path, results: Path) -> None:
    """`corpus check --results` in a process of its own, as a user runs it."""
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "CORPUS_REDACTION_KEY": TEST_KEY,
        "CORPUS_CACHE_DIR": str(results.parent / "cache"),
    }
    argv = [sys.executable, "-m", "corpus_tool", "-C", str(root), "check", "--results"]
    done = subprocess.run([*argv, str(results)], env=env, capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    assert results.is_file(), done.stderr


def _edit(root: Path) -> None:
    """A reviewer's edits of expected.yaml: tighter, looser, retired, no longer unknown."""

    def change(case: str, how: Any) -> None:
        path = root / "cases" / case / "expected.yaml"
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        how(doc)
        path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")

    change("refund-success", lambda d: d["expect"]["terminal"].update(status="succeeded"))
    change("cancel-refund-span-lost", lambda d: d.update(status="active"))
    change("inventory-zero-stock", lambda d: d["expect"].pop("output"))
    change("check-refund-timeout-retry", lambda d: d.update(status="retired"))
    change("create-refund-lost-retry", lambda d: d["expect"]["terminal"].update(status="failed"))


def _cases(path: Path) -> dict[str, dict[str, Any]]:
    """A document's cases by id, without what changes from run to run (the time taken)."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    return {c["case"]: {k: v for k, v in c.items() if k != "duration_ms"} for c in doc["cases"]}


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A check of the example corpus (its own agent), and the results document it wrote."""
    where = tmp_path_factory.mktemp("stored")
    root = _corpus(where, EXAMPLE_AGENT)
    _check(root, where / "before.json")
    return root, where / "before.json"


@pytest.fixture
def copied(stored: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the stored check's corpus, its agent now one that raises on import."""
    root, results = stored
    shutil.copytree(root, tmp_path / "corpus")
    shutil.copy(results, tmp_path / "before.json")
    _point(tmp_path / "corpus", "boom:run")
    return tmp_path / "corpus", tmp_path / "before.json"


@pytest.mark.parametrize("agent", [EXAMPLE_AGENT, "terse:run", "escalates:run"])
def test_regrade_after_an_expected_edit_gives_the_verdicts_a_full_check_gives(
    cli: Cli, tmp_path: Path, agent: str
) -> None:
    root = _corpus(tmp_path, agent)
    _check(root, tmp_path / "before.json")
    _edit(root)
    _check(root, tmp_path / "after.json")  # a full check: replayed again, graded afresh
    _point(root, "boom:run")  # regrade must not need the agent
    code, out, err = cli(
        "-C", root, "regrade", tmp_path / "before.json", "--results", tmp_path / "re.json"
    )
    assert err == ""
    checked, regraded = _cases(tmp_path / "after.json"), _cases(tmp_path / "re.json")
    assert regraded == checked
    before = _cases(tmp_path / "before.json")
    assert any(before[c]["verdict"] != checked[c]["verdict"] for c in checked)  # edits told
    failing = {"failed", "error", "flaky", "stale"}
    assert code == (1 if any(c["verdict"] in failing for c in checked.values()) else 0)
    for case, entry in checked.items():  # the text shows each case's verdict line
        assert any(line.split()[1:2] == [case] for line in out.splitlines()), case
        assert entry["verdict"] != "stale"


def test_regrade_of_an_unedited_corpus_repeats_the_run_without_importing_the_agent(
    cli: Cli, copied: tuple[Path, Path], tmp_path: Path
) -> None:
    root, before = copied
    again = tmp_path / "again.json"
    code, out, err = cli("-C", root, "regrade", before, "--results", again, "--format", "json")
    assert err == ""
    assert code == 0
    assert _cases(again) == _cases(before)
    printed = json.loads(out)
    assert printed["command"] == "regrade"
    assert printed["summary"] == json.loads(before.read_text(encoding="utf-8"))["summary"]
    # and the document regrade wrote regrades again to the same
    code, _, _ = cli("-C", root, "regrade", again, "--results", tmp_path / "third.json")
    assert code == 0
    assert _cases(tmp_path / "third.json") == _cases(before)


def test_a_case_whose_trace_changed_is_stale_in_the_text_json_results_and_junit(
    cli: Cli, copied: tuple[Path, Path], tmp_path: Path
) -> None:
    root, before = copied
    trace = root / "cases" / "refund-success" / "trace.yaml"
    trace.write_text(trace.read_text(encoding="utf-8") + "# re-recorded\n", encoding="utf-8")
    # the new trace would fail the case; a stale case is not graded against it
    expected = root / "cases" / "refund-success" / "expected.yaml"
    doc = yaml.safe_load(expected.read_text(encoding="utf-8"))
    doc["expect"]["terminal"]["status"] = "succeeded"
    expected.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    files = {"--results": tmp_path / "re.json", "--junit": tmp_path / "re.xml"}
    args = [a for pair in files.items() for a in pair]
    code, out, _ = cli("-C", root, "regrade", before, *args)
    assert code == 1
    line = next(x for x in out.splitlines() if "refund-success" in x.split())
    assert line.startswith("STALE ") and "trace.yaml changed since the run" in line
    assert "1 stale" in out
    written = _cases(tmp_path / "re.json")
    assert written["refund-success"]["verdict"] == "stale"
    assert written["refund-success"]["checks"] == []  # never graded
    others = {c: e for c, e in _cases(before).items() if c != "refund-success"}
    assert {c: written[c] for c in others} == others
    assert json.loads((tmp_path / "re.json").read_text())["summary"]["stale"] == 1
    junit = ElementTree.parse(tmp_path / "re.xml").getroot()
    stale = junit.find("testcase[@name='refund-success']/failure")
    assert stale is not None and "trace.yaml changed" in stale.get("message", "")
    code, out, _ = cli("-C", root, "regrade", before, "--format", "json")
    verdicts = {c["case"]: c["verdict"] for c in json.loads(out)["cases"]}
    assert verdicts["refund-success"] == "stale"


def test_a_document_that_records_no_trace_key_is_stale_throughout(
    cli: Cli, copied: tuple[Path, Path], tmp_path: Path
) -> None:
    root, before = copied
    doc = json.loads(before.read_text(encoding="utf-8"))
    for case in doc["cases"]:
        case.pop("trace_key", None)
    old = tmp_path / "old.json"
    old.write_text(json.dumps(doc), encoding="utf-8")
    code, out, _ = cli("-C", root, "regrade", old, "--format", "json")
    assert code == 1
    verdicts = Counter(c["verdict"] for c in json.loads(out)["cases"])
    skipped = sum(1 for c in doc["cases"] if c["verdict"] == "skipped")
    assert verdicts == Counter({"stale": len(doc["cases"]) - skipped, "skipped": skipped})


def test_cases_regrades_only_those_and_an_unknown_one_is_a_one_line_error(
    cli: Cli, copied: tuple[Path, Path]
) -> None:
    root, before = copied
    code, out, _ = cli(
        "-C", root, "regrade", before, "--cases", "refund-success", "--format", "json"
    )
    assert code == 0
    assert [c["case"] for c in json.loads(out)["cases"]] == ["refund-success"]
    code, out, err = cli("-C", root, "regrade", before, "--cases", "no-such-case")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "no-such-case" in err


def test_repeat_without_a_judge_is_a_one_line_usage_error(cli: Cli, tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "corpus", root)
    code, out, err = cli("-C", root, "regrade", tmp_path / "run.json", "--repeat", "3")
    assert code == 2 and out == ""
    assert "--judge" in err and len(err.strip().splitlines()) == 1


def test_a_document_of_another_corpus_is_refused_naming_it(
    cli: Cli, copied: tuple[Path, Path], tmp_path: Path
) -> None:
    root, before = copied
    doc = json.loads(before.read_text(encoding="utf-8"))
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**doc, "corpus": "billing"}), encoding="utf-8")
    assert gc.get_freeze_count() == 0
    code, out, err = cli("-C", root, "regrade", other)
    assert code == 2 and out == ""
    assert "billing" in err and "other.json" in err and len(err.strip().splitlines()) == 1
    assert gc.get_freeze_count() == 0  # what regrade froze to read the document, let go


def _judged(root: Path) -> dict[str, list[str]]:
    said: dict[str, list[str]] = {}
    for line in (root / "judged.jsonl").read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        said.setdefault(entry["case"], []).append(entry["said"])
    return said


def test_a_judge_answering_at_random_is_reported_with_its_disagreement_rate(
    cli: Cli, copied: tuple[Path, Path]
) -> None:
    root, before = copied
    code, out, _ = cli(
        "-C", root, "regrade", before, "--judge", "dice", "--repeat", "20", "--format", "json"
    )
    assert code == 0
    report = json.loads(out)["judge"]
    said = _judged(root)  # what the judge itself logged, counted here
    assert {c["case"] for c in report["cases"]} == set(said)
    for case in report["cases"]:
        answers = said[case["case"]]
        assert len(answers) == 20
        share = 1 - max(Counter(answers).values()) / len(answers)
        assert case["disagreement"] == pytest.approx(share, abs=1e-4)
        assert case["answers"] == dict(Counter(answers))
    assert report["disagreement"] > 0
    mean = sum(c["disagreement"] for c in report["cases"]) / len(report["cases"])
    assert report["disagreement"] == pytest.approx(mean, abs=1e-4)


def test_a_judge_answering_the_same_is_reported_with_no_disagreement(
    cli: Cli, copied: tuple[Path, Path]
) -> None:
    root, before = copied
    code, out, _ = cli("-C", root, "regrade", before, "--judge", "steady", "--repeat", "5")
    assert code == 0
    judged = len(_judged(root))
    assert judged >= 4  # every graded case (the stale and skipped ones are not asked)
    assert f"judge steady, asked 5 time(s) a case: it disagreed with itself on 0 of {judged}" in out
    assert "(disagreement 0.00)" in out


def test_a_case_whose_stubs_or_replay_mode_changed_is_stale(
    cli: Cli, copied: tuple[Path, Path]
) -> None:
    root, before = copied

    def change(case: str, how: Any) -> None:
        path = root / "cases" / case / "expected.yaml"
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        how(doc)
        path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")

    change("refund-success", lambda d: d.update(stubs={"notify": {"result": {"ok": True}}}))
    change("inventory-zero-stock", lambda d: d["replay"].update(mode="lenient"))
    code, out, _ = cli("-C", root, "regrade", before, "--format", "json")
    assert code == 1
    cases = {c["case"]: c for c in json.loads(out)["cases"]}
    assert cases["refund-success"]["verdict"] == "stale"
    assert "stubs" in cases["refund-success"]["reason"]
    assert cases["inventory-zero-stock"]["verdict"] == "stale"
    assert "lenient" in cases["inventory-zero-stock"]["reason"]
    assert cases["create-refund-lost-retry"]["verdict"] == "passed"


def test_a_case_file_linked_out_of_the_corpus_is_not_read(
    cli: Cli, copied: tuple[Path, Path], tmp_path: Path
) -> None:
    root, before = copied
    secret = tmp_path / "secret.yaml"
    expected = root / "cases" / "refund-success" / "expected.yaml"
    secret.write_bytes(expected.read_bytes())
    expected.unlink()
    expected.symlink_to(secret)
    code, out, _ = cli("-C", root, "regrade", before, "--format", "json")
    assert code == 1
    case = next(c for c in json.loads(out)["cases"] if c["case"] == "refund-success")
    assert case["verdict"] == "error" and "outside the corpus" in case["error"]


def test_fault_variants_regrade_as_check_graded_them(cli: Cli, tmp_path: Path) -> None:
    """A variant whose recorded run ended at the unanswerable reaction (`ended_at`) passes in
    check; regrading its stored run must not turn that ending into a divergence failure."""
    root = _corpus(tmp_path, EXAMPLE_AGENT)
    for fault in ("http:503:create_refund", "timeout:create_refund"):
        code, _, err = cli("-C", root, "vary", "refund-success", "--fault", fault, "--write")
        assert code == 0, err
    _check(root, tmp_path / "before.json")
    checked = _cases(tmp_path / "before.json")
    ended = checked["refund-success~http503-create_refund"]
    assert ended["verdict"] == "passed"
    assert ended["ended_at"] is not None  # the recording could not answer the reaction
    _point(root, "boom:run")
    code, _, err = cli(
        "-C", root, "regrade", tmp_path / "before.json", "--results", tmp_path / "re.json"
    )
    assert err == ""
    assert _cases(tmp_path / "re.json") == checked


def test_a_document_read_for_regrade_leaves_only_the_check_results_unread(
    stored: tuple[Path, Path],
) -> None:
    import dataclasses

    from corpus_tool.model.results import read_results

    whole, lean = read_results(stored[1]), read_results(stored[1], checks=False)
    assert any(c.checks for c in whole.cases) and not any(c.checks for c in lean.cases)
    assert lean == dataclasses.replace(
        whole, cases=tuple(dataclasses.replace(c, checks=()) for c in whole.cases)
    )
