"""output.similar: the built-in lexical fallback, and scorers a user plugs in."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus_tool.errors import UsageError
from corpus_tool.grade import Scorers, grade, lexical_scorer, resolve_scorer
from tests.grade.grade_trajectories import end

SIMILAR = {"output": {"similar": {"reference": "退款已提交", "min_score": 0.5}}}


@pytest.fixture
def user_module(tmp_path: Path) -> Iterator[str]:
    """A user's scorer module on sys.path, as an agent repository would provide it."""
    (tmp_path / "my_scorers.py").write_text(
        "def always(output, reference):\n    return 0.9\n"
        "def broken(output, reference):\n    raise RuntimeError('no GPU')\n"
        "def too_big(output, reference):\n    return 3\n"
        "NOT_CALLABLE = 1\n",
        encoding="utf-8",
    )
    sys.path.insert(0, str(tmp_path))
    yield "my_scorers"
    sys.path.remove(str(tmp_path))
    sys.modules.pop("my_scorers", None)


def test_lexical_scorer_token_sets() -> None:
    assert lexical_scorer("Refund R1 submitted", "refund r1 SUBMITTED!") == 1.0
    assert lexical_scorer("a b", "c d") == 0.0
    assert lexical_scorer("", "") == 1.0
    # CJK has no spaces: each character is a token
    assert lexical_scorer("退款已提交", "退款已到账") == pytest.approx(0.6)


def test_resolve_scorer_names() -> None:
    assert resolve_scorer(None) is None
    assert resolve_scorer("lexical") is lexical_scorer
    with pytest.raises(UsageError, match="not `module:callable`"):
        resolve_scorer("nocolon")
    with pytest.raises(UsageError, match="cannot be loaded"):
        resolve_scorer("no_such_module_xyz:f")


def test_grade_similar_uses_plugged_scorer(user_module: str) -> None:
    scorer = resolve_scorer(f"{user_module}:always")
    [result] = grade(SIMILAR, [], end("submitted", "whatever"), scorer)
    assert result.passed
    assert "similarity 0.90 >= 0.50 (my_scorers:always)" in result.message


def _registered(module: str) -> Scorers:
    """corpus.yaml `scorers`: each name of the user's module registered as itself."""
    names = ("always", "broken", "too_big", "NOT_CALLABLE", "missing")
    return Scorers({name: f"{module}:{name}" for name in names})


def test_grade_similar_case_scorer_overrides_default(user_module: str) -> None:
    expect = {"output": {"similar": {"reference": "x", "scorer": "always"}}}
    [result] = grade(expect, [], end(), lexical_scorer, _registered(user_module))
    assert result.details["scorer"] == "my_scorers:always"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("broken", "scorer my_scorers:broken raised RuntimeError: no GPU"),
        ("too_big", "scorer my_scorers:too_big returned 3.0, outside [0, 1]"),
        ("NOT_CALLABLE", "is not callable"),
        ("missing", "cannot be loaded"),
    ],
)
def test_grade_similar_bad_scorer_fails(user_module: str, name: str, message: str) -> None:
    expect = {"output": {"similar": {"reference": "x", "scorer": name}}}
    [result] = grade(expect, [], end(), scorers=_registered(user_module))
    assert not result.passed
    assert message in result.message


def test_grade_similar_case_naming_a_callable_fails_without_importing_it(
    user_module: str, tmp_path: Path
) -> None:
    marker = tmp_path / "imported"
    (tmp_path / "planted_scorer.py").write_text(
        f"open({str(marker)!r}, 'w').close()\ndef score(o, r):\n    return 1.0\n",
        encoding="utf-8",
    )
    expect = {"output": {"similar": {"reference": "x", "scorer": "planted_scorer:score"}}}
    [result] = grade(expect, [], end(), lexical_scorer, _registered(user_module))
    assert not result.passed
    assert "'planted_scorer:score' is not registered in corpus.yaml `scorers`" in result.message
    assert not marker.exists() and "planted_scorer" not in sys.modules


def test_grade_similar_default_is_a_registered_name(user_module: str) -> None:
    expect = {"output": {"similar": {"reference": "x"}}}
    scorers = Scorers(_registered(user_module).registered, default="always")
    [result] = grade(expect, [], end(), scorers=scorers)
    assert result.passed and result.details["scorer"] == "my_scorers:always"
