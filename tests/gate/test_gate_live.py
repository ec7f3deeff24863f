"""`corpus gate --model live --repeat K`: base against head per case by the exact test, run
for real (both revisions in git worktrees, the real `openai` client against the scripted
provider on the loopback, set to known pass rates per side)."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path

import pytest

from corpus_tool.testing.scripted_model import ModelScript
from tests.conftest import Cli, git
from tests.gate.live_repo import CASE, HEAD_MARK, live_repo, rates
from tests.replay.live_corpus import provider

__all__ = ["provider"]  # the fixture, used by name

GATE = ("gate", "--base", "HEAD~1", "--head", "HEAD", "--model", "live")


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    return live_repo(tmp_path)


def _gate(cli: Cli, root: Path, *args: str) -> tuple[int, dict[str, object], str]:
    """The gate's exit code, its JSON case, and its text report (a second, identical run:
    the provider's answers are reset so both see the same attempts)."""
    code, out, err = cli("-C", root, *GATE, *args, "--format", "json")
    assert code in (0, 1), out + err
    doc = json.loads(out)
    return code, doc, err


def _lookups(script: ModelScript) -> tuple[int, int]:
    """Attempts per side that made the get_order lookup, counted from what the provider was
    asked (a request answering the lookup's result), not from the gate."""
    counts = [0, 0]
    for body in script.requests:
        messages = body.get("messages") or []
        if messages and messages[-1].get("role") == "tool" and _called(messages) == "get_order":
            counts[HEAD_MARK in str(messages[0].get("content"))] += 1
    return counts[0], counts[1]


def _called(messages: list[dict[str, object]]) -> object:
    calls = messages[-2].get("tool_calls") or [{}]
    return calls[0].get("function", {}).get("name")  # type: ignore[index, union-attr]


def _case(doc: dict[str, object]) -> dict[str, object]:
    cases = doc["cases"]
    assert isinstance(cases, list)
    return next(c for c in cases if c["case"] == CASE)


@pytest.mark.parametrize(
    ("base", "head", "model", "verdict", "code"),
    [
        (0.9, 0.3, None, "regression", 1),
        (0.9, 0.85, None, "insufficient_data", 0),
        (0.3, 0.3, None, "unreliable_baseline", 0),
        (0.9, 0.9, "other-model-2026", "not_comparable", 0),
        (0.4, 0.9, None, "improved", 0),
    ],
)
def test_live_gate_verdict_at_k_10_from_known_pass_rates(
    cli: Cli,
    repo: Path,
    provider: ModelScript,
    base: float,
    head: float,
    model: str | None,
    verdict: str,
    code: int,
) -> None:
    """The acceptance table of issue 24: each verdict, its exit code, its report line."""
    rates(provider, base, head, model)
    done, doc, _ = _gate(cli, repo, "--repeat", "10")
    case = _case(doc)
    live = case["live"]
    assert isinstance(live, dict)
    assert (case["verdict"], done) == (verdict, code), live
    assert live["base"]["k"] == live["head"]["k"] == 10  # type: ignore[index]
    assert (live["base"]["passes"], live["head"]["passes"]) == _lookups(provider)  # type: ignore[index]
    if verdict == "insufficient_data":
        assert isinstance(live["k_needed"], int) and live["k_needed"] > 10
    if verdict == "not_comparable":
        assert "other-model-2026" in str(live["not_comparable"])
    if verdict in ("regression", "improved"):
        assert float(live["p_value"]) < 0.05  # type: ignore[arg-type]
    rates(provider, base, head, model)  # the same answers again: the text report
    done, out, _ = cli("-C", repo, *GATE, "--repeat", "10")
    line = next(x for x in out.splitlines() if x.startswith(CASE))
    shown = verdict.replace("_", " ")
    assert shown in line and f"base {live['base']['passes']}/10" in line, out  # type: ignore[index]
    assert done == code
    if verdict == "insufficient_data":
        assert f"K={live['k_needed']} per side needed" in line
    if verdict == "regression":
        assert out.rstrip().endswith("gate: BLOCKED (1 regression); * marks what blocks")
        # corpus diff's shift over every attempt: a run that made the lookup ends submitted
        base_lookups, head_lookups = _lookups(provider)
        assert f"  ended submitted: base {base_lookups}, head {head_lookups}" in out, out
        shift = doc["live"]["shift"]  # type: ignore[index]
        assert shift["terminal"]["submitted"] == [base_lookups, head_lookups]


def _waiver(root: Path, expires: date, created: date) -> None:
    """A head commit adding a waiver of every check of the case."""
    (root / "waivers" / "W-0100.yaml").write_text(
        "schema_version: 1\nid: W-0100\nkind: check\ncase: refund-success\nchecks: [all]\n"
        f"reason: the lookup is being reworked\nowner: payments\nexpires: '{expires}'\n"
        f"created: '{created}'\n",
        encoding="utf-8",
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"waiver until {expires}")


TODAY = date.today()


@pytest.mark.parametrize(
    ("expires", "created", "code"),
    [
        (TODAY + timedelta(days=30), TODAY, 0),
        (TODAY - timedelta(days=1), TODAY - timedelta(days=30), 1),
    ],
)
def test_a_waiver_covers_a_live_regression_and_an_expired_one_does_not(
    cli: Cli, repo: Path, provider: ModelScript, expires: date, created: date, code: int
) -> None:
    _waiver(repo, expires, created)
    rates(provider, 0.9, 0.3)
    args = ("gate", "--base", "HEAD~2", "--head", "HEAD", "--model", "live", "--repeat", "10")
    done, out, err = cli("-C", repo, *args)
    assert done == code, out + err
    line = next(x for x in out.splitlines() if x.startswith(CASE))
    assert "regression" in line
    if code == 0:
        assert "waived by W-0100" in line and "gate: PASSED: no regression (1 waived)" in out
    else:
        assert "waiver W-0100" in out and "has expired" in out
        assert "gate: BLOCKED (1 regression)" in out


def test_repeat_auto_reaches_the_verdicts_of_repeat_10_with_fewer_model_calls(
    cli: Cli, repo: Path, provider: ModelScript
) -> None:
    """Rounds of 2 attempts per side, a case stopped once its verdict cannot change: the
    verdicts of --repeat 10, and fewer calls to the provider over the scenarios (counted by
    the provider itself, and as the report says)."""
    scenarios = [(0.9, 0.3), (0.9, 0.85), (0.3, 0.3)]
    asked = {"10": 0, "auto": 0}
    for base, head in scenarios:
        verdicts = set()
        for repeat in ("10", "auto"):
            rates(provider, base, head)
            code, doc, err = _gate(cli, repo, "--repeat", repeat)
            case = _case(doc)
            live = case["live"]
            assert isinstance(live, dict)
            assert live["model_calls"] == len(provider.requests), err
            asked[repeat] += len(provider.requests)
            verdicts.add((case["verdict"], code))
            assert live["base"]["k"] <= 10 and live["head"]["k"] <= 10  # type: ignore[index]
            if repeat == "auto":
                assert "round 1: 1 case(s), 2 attempt(s) per side" in err
        assert len(verdicts) == 1, (base, head, verdicts)
    assert asked["auto"] < asked["10"], asked
