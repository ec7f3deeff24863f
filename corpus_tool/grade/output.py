"""`expect.output`: assertions on the final output text, including semantic similarity."""

from __future__ import annotations

import re

from corpus_tool.errors import CorpusError
from corpus_tool.grade.registry import Check, TableGrader, always
from corpus_tool.grade.result import failed, from_problems, passed
from corpus_tool.grade.scorers import LEXICAL, Scorer, scorer_name
from corpus_tool.grade.view import RunView, show
from corpus_tool.io.files import canonical_json
from corpus_tool.model.checks import CheckResult
from corpus_tool.model.expected import SimilarExpect

DEFAULT_MIN_SCORE = 0.8
_EXCERPT = 120


def output_text(run: RunView) -> str | None:
    """The final output as text: a string as is, other values as JSON, None when absent."""
    value = run.terminal.output
    if value is None or isinstance(value, str):
        return value
    return canonical_json(value)


def contains(needles: tuple[str, ...], run: RunView) -> CheckResult:
    """Every listed substring appears in the output."""
    text = output_text(run)
    missing = [n for n in needles if text is None or n not in text]
    problems = [f"output lacks {show(n)}; {_excerpt(text)}" for n in missing]
    return from_problems(
        "output.contains", problems, f"output contains {_shown(needles)}", missing=missing
    )


def not_contains(needles: tuple[str, ...], run: RunView) -> CheckResult:
    """No listed substring appears in the output."""
    text = output_text(run) or ""
    present = [n for n in needles if n in text]
    problems = [
        f"output contains {show(n)} at offset {text.index(n)}; {_excerpt(text)}" for n in present
    ]
    return from_problems(
        "output.not_contains", problems, f"output has none of {_shown(needles)}", present=present
    )


def regex(patterns: tuple[str, ...], run: RunView) -> CheckResult:
    """Every listed pattern matches somewhere in the output (`re.search`)."""
    text = output_text(run)
    problems = []
    for pattern in patterns:
        try:
            hit = re.search(pattern, text or "")
        except re.error as err:
            problems.append(f"pattern `{pattern}` is not a valid regular expression ({err})")
            continue
        if text is None or hit is None:
            problems.append(f"pattern `{pattern}` matches nowhere; {_excerpt(text)}")
    shown = ", ".join(f"`{p}`" for p in patterns) or "(nothing listed)"
    return from_problems("output.regex", problems, f"output matches {shown}")


def similar(spec: SimilarExpect, run: RunView) -> CheckResult:
    """The plugged scorer rates the output at least `min_score` similar to the reference."""
    reference = spec.reference
    minimum = DEFAULT_MIN_SCORE if spec.min_score is None else spec.min_score
    try:
        scorer = _scorer(spec, run)
    except CorpusError as err:
        return failed("output.similar", f"{err}")
    if scorer is None:
        return failed("output.similar", _NO_SCORER)
    return _score(scorer, output_text(run) or "", reference, minimum)


_NO_SCORER = (
    "no similarity scorer configured: register one under corpus.yaml `scorers` and name it in "
    f"replay.scorer (or use `{LEXICAL}`, the built-in token-set fallback), or name one in the "
    "case's output.similar.scorer"
)


def _scorer(spec: SimilarExpect, run: RunView) -> Scorer | None:
    """The case's named scorer, else the caller's, else the corpus default (names only)."""
    if spec.scorer:
        return run.scorers.resolve(spec.scorer)
    return run.scorer if run.scorer is not None else run.scorers.resolve()


def _score(scorer: Scorer, text: str, reference: str, minimum: float) -> CheckResult:
    name = scorer_name(scorer)
    try:
        score = float(scorer(text, reference))
    except Exception as err:  # a user's scorer may fail any way; the case fails, not the run
        return failed("output.similar", f"scorer {name} raised {type(err).__name__}: {err}")
    if not 0.0 <= score <= 1.0:
        return failed("output.similar", f"scorer {name} returned {score}, outside [0, 1]")
    details = {"score": round(score, 4), "min_score": minimum, "scorer": name}
    if score >= minimum:
        return passed(
            "output.similar", f"similarity {score:.2f} >= {minimum:.2f} ({name})", **details
        )
    return failed(
        "output.similar",
        f"similarity {score:.2f} < {minimum:.2f} ({name}) to reference {show(reference)}; "
        f"{_excerpt(text)}",
        **details,
    )


def _shown(items: tuple[str, ...]) -> str:
    return ", ".join(show(i) for i in items) or "(nothing listed)"


def _excerpt(text: str | None) -> str:
    if text is None:
        return "the run produced no output"
    return f"output was {show(text, _EXCERPT)}"


GRADER = TableGrader(
    "output",
    (
        # a cut-short run produced no output to judge
        Check("contains", "output.contains", contains, always),
        Check("not_contains", "output.not_contains", not_contains, always),
        Check("regex", "output.regex", regex, always),
        Check("similar", "output.similar", similar, always),
    ),
)
