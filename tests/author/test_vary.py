"""`corpus vary`: fault variants of an example case, written as files a reader can check.

What a variant must be is read from the files with a YAML parser and compared with the source
case's own files; nothing here asks corpus-tool what it wrote.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from corpus_tool.io import files, schema
from corpus_tool.model.trace import Trace
from corpus_tool.store.corpus import is_case_id
from tests.conftest import Cli
from tests.replay.conftest import copy_corpus

SOURCE = "refund-success"
TIMEOUT = "refund-success~timeout-create_refund"


def _doc(root: Path, case: str, name: str) -> Any:
    return yaml.safe_load((root / "cases" / case / name).read_text(encoding="utf-8"))


def _faulted(trace: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in trace["events"] if "fault" in e]


def test_vary_timeout_writes_a_case_that_validates(cli: Cli, tmp_path: Path) -> None:
    root = copy_corpus(tmp_path)
    done = cli("-C", root, "vary", SOURCE, "--fault", "timeout:create_refund", "--write")
    assert done.code == 0, done.err
    assert f"wrote {TIMEOUT}" in done.out
    assert cli("-C", root, "validate").code == 0
    trace, expected = _doc(root, TIMEOUT, "trace.yaml"), _doc(root, TIMEOUT, "expected.yaml")
    assert trace["id"] == expected["id"] == TIMEOUT
    assert trace["derived_from"] == expected["derived_from"] == SOURCE
    assert expected["tier"] == "full"
    source = _doc(root, SOURCE, "trace.yaml")
    first = next(e for e in source["events"] if e.get("tool") == "create_refund")
    (hit,) = _faulted(trace)
    assert hit["seq"] == first["seq"] and hit["result"] == first["result"]  # a retry gets it
    assert hit["fault"]["kind"] == "timeout"
    assert hit["fault"]["error"]["type"] == "TimeoutError"
    # everything else is the recording as it was
    rest = [{k: v for k, v in e.items() if k != "fault"} for e in trace["events"]]
    assert rest == source["events"]
    assert trace["input"] == source["input"] and trace["terminal"] == source["terminal"]


def test_vary_without_write_or_with_dry_run_writes_nothing(cli: Cli, tmp_path: Path) -> None:
    root = copy_corpus(tmp_path)
    before = sorted(p.name for p in (root / "cases").iterdir())
    shown = cli("-C", root, "vary", SOURCE, "--fault", "timeout:create_refund")
    dry = cli(
        "-C", root, "vary", SOURCE, "--fault", "timeout:create_refund", "--write", "--dry-run"
    )
    for done in (shown, dry):
        assert done.code == 0, done.err
        assert f"would write {TIMEOUT}" in done.out and "nothing written" in done.out
    assert sorted(p.name for p in (root / "cases").iterdir()) == before


def test_vary_refuses_an_existing_variant_unless_force(cli: Cli, tmp_path: Path) -> None:
    root = copy_corpus(tmp_path)
    args = ["-C", root, "vary", SOURCE, "--fault", "timeout:create_refund", "--write"]
    assert cli(*args).code == 0
    expected = root / "cases" / TIMEOUT / "expected.yaml"
    reviewed = expected.read_text(encoding="utf-8") + "# reviewed\n"
    expected.write_text(reviewed, encoding="utf-8")
    trace = root / "cases" / TIMEOUT / "trace.yaml"
    trace.write_text(trace.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    again = cli(*args)
    assert again.code == 2 and again.err.count("\n") == 1
    assert TIMEOUT in again.err and "--force" in again.err
    assert trace.read_text(encoding="utf-8").endswith("# edited\n")  # untouched
    forced = cli(*args, "--force")
    assert forced.code == 0, forced.err
    assert not trace.read_text(encoding="utf-8").endswith("# edited\n")  # rewritten
    assert expected.read_text(encoding="utf-8") == reviewed  # a reviewed expected.yaml stays


def test_vary_a_case_without_a_side_effect_and_no_target_is_a_one_line_error(
    cli: Cli, tmp_path: Path
) -> None:
    root = copy_corpus(tmp_path)
    trace = _doc(root, "inventory-zero-stock", "trace.yaml")
    assert not [e for e in trace["events"] if e["type"] == "side_effect"]  # the premise
    before = sorted(p.name for p in (root / "cases").iterdir())
    for args in (["--write"], ["--fault", "duplicate", "--write"]):
        done = cli("-C", root, "vary", "inventory-zero-stock", *args)
        assert done.code == 2, done.out
        assert done.err.count("\n") == 1 and "no tool call with a side effect" in done.err
        assert "--fault" in done.err and ":TOOL" in done.err
    assert sorted(p.name for p in (root / "cases").iterdir()) == before
    named = cli("-C", root, "vary", "inventory-zero-stock", "--fault", "timeout:search_inventory")
    assert named.code == 0 and "inventory-zero-stock~timeout-search_inventory" in named.out


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        ("timeout:send_mail", "never calls send_mail; its tools: get_order, create_refund"),
        ("what", "--fault 'what': write timeout[:TOOL[:TYPE]]"),
        ("http:200:create_refund", "a number from 400 to 599"),
        ("error", "--fault 'error': write"),
        ("drift:amount:create_refund", "has no field 'amount'; its fields: refund_id, state"),
    ],
)
def test_vary_a_malformed_or_unknown_fault_is_a_one_line_error(
    cli: Cli, tmp_path: Path, fault: str, said: str
) -> None:
    root = copy_corpus(tmp_path)
    done = cli("-C", root, "vary", SOURCE, "--fault", fault, "--write")
    assert done.code == 2 and done.err.count("\n") == 1, done.err
    assert said in done.err
    assert not [p for p in (root / "cases").iterdir() if "~" in p.name]


def test_vary_derives_expectations_by_the_documented_rules(cli: Cli, tmp_path: Path) -> None:
    root = copy_corpus(tmp_path)
    assert cli("-C", root, "vary", SOURCE, "--fault", "timeout:create_refund", "--write").code == 0
    source = _doc(root, SOURCE, "expected.yaml")["expect"]
    text = (root / "cases" / TIMEOUT / "expected.yaml").read_text(encoding="utf-8")
    variant = yaml.safe_load(text)["expect"]
    for key in ("errors", "egress", "side_effects", "terminal"):  # safety: unchanged
        assert variant[key] == source[key]
    assert variant["tools"]["allowed"] == source["tools"]["allowed"]
    assert variant["output"]["not_contains"] == source["output"]["not_contains"]
    # retrying is what the variant tests: the faulted tool may be called retries.max more
    before = source["tools"]["max_calls"]["create_refund"]
    assert variant["tools"]["max_calls"]["create_refund"] == before + 2
    assert variant["idempotency"]["tools"] == ["create_refund"]
    # the happy path's own expectations are left to a reviewer, each marked REVIEW
    assert "required" not in variant["tools"] and "contains" not in variant["output"]
    assert re.search(r"REVIEW: tools\.required \(get_order, create_refund\)", text)
    assert "REVIEW: output.contains" in text


def test_vary_raises_max_calls_by_the_cases_own_retries_max(cli: Cli, tmp_path: Path) -> None:
    root = copy_corpus(tmp_path)
    path = root / "cases" / SOURCE / "expected.yaml"
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc["expect"]["retries"] = {"max": 5}
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    assert (
        cli("-C", root, "vary", SOURCE, "--fault", "duplicate:create_refund", "--write").code == 0
    )
    variant = _doc(root, "refund-success~duplicate-create_refund", "expected.yaml")
    assert variant["expect"]["tools"]["max_calls"]["create_refund"] == 1 + 5


KINDS = {
    "timeout:create_refund:ConnectionResetError": (
        "refund-success~timeout-create_refund",
        lambda f, rec: f["error"]["type"] == "ConnectionResetError",
    ),
    "error:ValueError": (
        "refund-success~error-create_refund",
        lambda f, rec: f["error"]["type"] == "ValueError",
    ),
    "http:503": (
        "refund-success~http503-create_refund",
        lambda f, rec: f["status"] == 503 and f["result"]["status"] == 503,
    ),
    "drift:state:create_refund:renamed": (
        "refund-success~drift-create_refund",
        lambda f, rec: "state" not in f["result"] and f["result"]["state_v2"] == rec["state"],
    ),
    "drift:refund_id:create_refund:retyped": (
        "refund-success~drift-create_refund",
        lambda f, rec: f["result"]["refund_id"] == [rec["refund_id"]],
    ),
    "empty:get_order": ("refund-success~empty-get_order", lambda f, rec: f["result"] == {}),
    "duplicate": (
        "refund-success~duplicate-create_refund",
        lambda f, rec: (
            f["error"]["type"] == "TimeoutError"
            and f["effects"]
            == [
                {
                    "kind": "refund_created",
                    "target": "O-1001",
                    "data": {"refund_id": "R900", "amount": 19900},
                }
            ]
        ),
    ),
}


@pytest.mark.parametrize("fault", sorted(KINDS))
def test_vary_every_fault_kind_writes_a_valid_case(cli: Cli, tmp_path: Path, fault: str) -> None:
    root = copy_corpus(tmp_path)
    case, holds = KINDS[fault]
    done = cli("-C", root, "vary", SOURCE, "--fault", fault, "--write")
    assert done.code == 0, done.err
    assert cli("-C", root, "validate").code == 0
    text = (root / "cases" / case / "trace.yaml").read_text(encoding="utf-8")
    assert not re.search(r"[&*]id\d", text)  # no value shared with the recording (no alias)
    # read and written again through the trace model, not a byte changes (one key order)
    assert files.dump_yaml(Trace.from_doc(yaml.safe_load(text)).to_doc()) == text
    trace = _doc(root, case, "trace.yaml")
    (hit,) = _faulted(trace)
    assert holds(hit["fault"], hit["result"]), hit


def test_vary_format_json_lists_each_variant(cli: Cli, tmp_path: Path) -> None:
    root = copy_corpus(tmp_path)
    args = ["--fault", "timeout", "--fault", "http:502:get_order", "--format", "json"]
    done = cli("-C", root, "vary", SOURCE, *args)
    assert done.code == 0, done.err
    doc = json.loads(done.out)
    assert doc["source"] == SOURCE and doc["written"] is False
    by_id = {v["id"]: v for v in doc["variants"]}
    assert set(by_id) == {TIMEOUT, "refund-success~http502-get_order"}
    assert by_id[TIMEOUT]["fault"] == {
        "kind": "timeout",
        "tool": "create_refund",
        "argument": None,
        "seq": 4,
    }
    assert by_id[TIMEOUT]["path"] == f"cases/{TIMEOUT}"
    assert not (root / "cases" / TIMEOUT).exists()


def test_validate_reports_a_variant_whose_source_is_gone(cli: Cli, tmp_path: Path) -> None:
    root = copy_corpus(tmp_path)
    assert cli("-C", root, "vary", SOURCE, "--fault", "timeout:create_refund", "--write").code == 0
    import shutil

    shutil.rmtree(root / "cases" / SOURCE)
    done = cli("-C", root, "validate")
    assert done.code == 1
    assert (
        "[case.derived]" in done.out and f"derived from case {SOURCE!r}, which is gone" in done.out
    )


def test_validate_reports_a_derived_from_that_disagrees_with_the_id(
    cli: Cli, tmp_path: Path
) -> None:
    root = copy_corpus(tmp_path)
    assert cli("-C", root, "vary", SOURCE, "--fault", "timeout:create_refund", "--write").code == 0
    path = root / "cases" / TIMEOUT / "trace.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text.replace(f"derived_from: {SOURCE}", "derived_from: refund-wrong-unit"), "utf-8"
    )
    done = cli("-C", root, "validate")
    assert done.code == 1 and "[case.derived]" in done.out and "refund-wrong-unit" in done.out


@pytest.mark.parametrize(
    "case_id",
    [
        TIMEOUT,
        "a~http503-b",
        "a~b",
        "a~timeout-b~timeout-c",
        "a~timeout-",
        "a~timeout-b.",
        "con~timeout-b",
        "a.~timeout-b",
        "a~http50-b",
        "a~timeout-" + "b" * 40,
        "a~timeout-" + "b" * 41,
        "~timeout-b",
        "a~Timeout-b",
    ],
)
def test_the_derived_id_rule_is_the_schemas(case_id: str) -> None:
    """`~` only as the separator of a derived case, once; code and schemas agree."""
    doc = json.loads((schema.schema_dir() / "expected.schema.json").read_text("utf-8"))
    pattern = doc["properties"]["id"]["pattern"]
    valid = case_id in (TIMEOUT, "a~http503-b", "a~timeout-" + "b" * 40)
    assert is_case_id(case_id) is valid
    assert (re.search(pattern, case_id) is not None) is valid
