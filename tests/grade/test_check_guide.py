"""How each check is written: one table of examples, graded, in the docs, in messages."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from corpus_tool.errors import InputError
from corpus_tool.grade import CHECK_NAMES, grade
from corpus_tool.io import schema
from corpus_tool.model.check_guide import BY_NAME, GUIDES, REPLAY_GUIDES
from corpus_tool.model.checks import REPLAY_CHECKS
from tests.conftest import EXAMPLES, ROOT, Cli
from tests.grade.grade_trajectories import call, end, expected_document

GRADING_MD = (ROOT / "docs" / "grading.md").read_text(encoding="utf-8")


def test_every_check_has_one_guide_in_result_order() -> None:
    assert tuple(BY_NAME) == CHECK_NAMES
    assert tuple(REPLAY_GUIDES) == REPLAY_CHECKS


@pytest.mark.parametrize("name", CHECK_NAMES)
def test_each_example_fits_the_schema_and_runs_exactly_its_check(name: str) -> None:
    guide = BY_NAME[name]
    expect = yaml.safe_load(guide.block())["expect"]
    assert schema.errors("expected", expected_document(expect)) == []
    assert yaml.safe_load(guide.line()) == expect  # the one-line form says the same
    results = grade(expect, [call(1, "get_order")], end("submitted", "Refund R903 submitted."))
    assert [r.name for r in results] == [name]


@pytest.mark.parametrize("name", CHECK_NAMES)
def test_docs_show_each_example_under_its_heading(name: str) -> None:
    guide = BY_NAME[name]
    section = GRADING_MD.split(f"### `{name}`\n", 1)
    assert len(section) == 2, f"docs/grading.md has no heading ### `{name}`"
    block = re.search(r"```yaml\n(.*?)```", section[1], re.S)
    assert block is not None and block.group(1) == guide.block(), (
        f"docs/grading.md, ### `{name}`: the example must be\n{guide.block()}"
    )


def test_docs_table_says_what_each_check_passes_on() -> None:
    rows = dict(re.findall(r"^\| `([a-z_.]+)` \| ([^|]+) \|", GRADING_MD, re.M))
    for guide in GUIDES:
        assert rows[guide.name].strip() == guide.passes


def test_explain_prints_the_example_and_the_rule(cli: Cli) -> None:
    done = cli("explain", "side_effects.count")
    assert done.code == 0
    assert "  side_effects: [{type: refund_created, count: 1}]" in done.out
    assert BY_NAME["side_effects.count"].passes in done.out
    every = cli("explain", "tools", "--format", "json")
    names = [e["check"] for e in json.loads(every.out)]
    assert names == [n for n in CHECK_NAMES if n.startswith("tools.")]
    listing = cli("explain")
    assert all(name in listing.out for name in (*CHECK_NAMES, *REPLAY_CHECKS))


def test_explain_of_an_unknown_check_lists_the_known_ones(cli: Cli) -> None:
    done = cli("explain", "side_effect.count")
    assert done.code == 2 and "side_effects.count" in done.err and done.err.count("\n") == 1


SE, IDEM = "side_effects.count", "idempotency.reuse_key"
WRONG: list[tuple[dict[str, Any], str, str]] = [
    # what a newcomer guesses from the check name -> the key named, the example shown
    ({"side_effects": {"type": "refund", "count": 1}}, "expect.side_effects", SE),
    ({"side_effects": {"count": {"refund": 1}}}, "expect.side_effects", SE),
    ({"side_effects": [{"kind": "refund", "count": 1}]}, "expect.side_effects[0]", SE),
    ({"idempotency": {"reuse_key": ["create_refund"]}}, "expect.idempotency", IDEM),
    ({"idempotency": ["create_refund"]}, "expect.idempotency", IDEM),
    ({"tools": {"required": "notify"}}, "expect.tools.required", "tools.required"),
    ({"tools": {"args": {"tool": "create_refund"}}}, "expect.tools.args", "tools.args"),
    ({"tools": {"max_calls": [{"pay": 1}]}}, "expect.tools.max_calls", "tools.max_calls"),
    ({"tools": {"order": ["get_order", "pay"]}}, "expect.tools.order[0]", "tools.order"),
    ({"retries": 2}, "expect.retries", "retries.max"),
    ({"terminal": "submitted"}, "expect.terminal", "terminal.status"),
    ({"terminal": {"status": "done"}}, "expect.terminal.status", "terminal.status"),
    ({"errors": {"forbidden": "KeyError"}}, "expect.errors.forbidden", "errors.forbidden"),
    ({"errors": ["KeyError"]}, "expect.errors", "errors.forbidden"),
    ({"output": {"contains": "R903"}}, "expect.output.contains", "output.contains"),
    ({"output": {"similar": "Refund submitted."}}, "expect.output.similar", "output.similar"),
    ({"egress": ["orders.internal"]}, "expect.egress", "egress.allowed"),
]


@pytest.mark.parametrize(("expect", "where", "name"), WRONG)
def test_a_wrong_shape_is_an_input_error_showing_the_example(
    expect: dict[str, Any], where: str, name: str
) -> None:
    with pytest.raises(InputError) as raised:
        grade(expect, [call(1, "get_order")], end())
    message = str(raised.value)
    assert message.startswith(f"{where}: ")
    assert BY_NAME[name].line() in message or f"`corpus explain {name.split('.')[0]}`" in message


def test_a_wrong_shape_in_expected_yaml_is_a_finding_with_the_example(
    corpus_dir: Path, cli: Cli
) -> None:
    incident = EXAMPLES / "incidents" / "create-refund-lost-retry.json"
    assert cli("-C", corpus_dir, "add", incident, "--id", "lost").code == 0
    expected = corpus_dir / "cases/lost/expected.yaml"
    text = expected.read_text()
    expected.write_text(text + "  side_effects: {type: refund_created, count: 1}\n")
    done = cli("validate", cwd=corpus_dir)
    assert done.code == 1
    [line] = [x for x in done.out.splitlines() if "$.expect.side_effects" in x]
    number = text.count("\n") + 1
    assert line.startswith(f"cases/lost/expected.yaml:{number}: [schema]")
    assert BY_NAME["side_effects.count"].line() in line
