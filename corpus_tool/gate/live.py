"""The live gate: base against head per case over K attempts each, by an exact test.

A case both sides ran live (`--model live`, passes out of attempts in each results document)
gets one of these verdicts, by these rules in this order (docs/gate.md writes the formulas):

| verdict             | when                                                     | blocks |
| not_comparable      | model ids, tool sets or the case's recording differ      | never  |
| regression          | head passed fewer, Fisher p (drop) < the case's level    | yes*   |
| improved            | head passed more, Fisher p (rise) < gate.alpha           | no     |
| unreliable_baseline | base passed less than gate.min_base_rate of its attempts | never  |
| unchanged           | a drop of gate.min_detectable had power >= 0.8 at these K | no    |
| insufficient_data   | it had not: `k_needed` is the K per side that would      | never  |

*: unless a waiver covers the head's failed checks, as in recorded mode.
The case's level is gate.alpha, or with `gate.correction: holm` its Holm–Bonferroni level
among the run's live cases. Beside the cases, the whole run: both sides' pass rates over all
attempts with Wilson intervals, and the exact sign test of the per-case rate differences
(`suite regression` when p < gate.alpha and more cases dropped than rose).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from corpus_tool.diff.suites import Shift
from corpus_tool.model.config import GateSection
from corpus_tool.model.events import ModelCallEvent
from corpus_tool.model.json import Json, JsonObject
from corpus_tool.model.results import CaseOutcome
from corpus_tool.model.vocabulary import StrEnum
from corpus_tool.stats.exact import (
    Interval,
    SignTest,
    below,
    fisher_drop,
    fisher_rise,
    holm,
    k_needed,
    power,
    sign_test,
    wilson,
)


class LiveVerdict(StrEnum):
    """What the exact test makes of a live case (the table above)."""

    NOT_COMPARABLE = "not_comparable"
    REGRESSION = "regression"
    IMPROVED = "improved"
    UNRELIABLE_BASELINE = "unreliable_baseline"
    UNCHANGED = "unchanged"
    INSUFFICIENT_DATA = "insufficient_data"


SHOWN = {v: v.value.replace("_", " ") for v in LiveVerdict}
"""How the text and Markdown reports name a verdict (`insufficient data`)."""


@dataclass(frozen=True)
class Tally:
    """One side of a live case: passes out of k attempts, and what the model said it was."""

    passes: int
    k: int
    model_calls: int = 0
    models: tuple[str, ...] = ()  # the model ids the provider answered as, sorted
    tools: tuple[str, ...] = ()  # the tool names the agent offered the model, sorted

    @property
    def rate(self) -> float:
        return self.passes / self.k if self.k else 0.0

    @property
    def interval(self) -> Interval:
        return wilson(self.passes, self.k)

    def shown(self) -> str:
        return f"{self.passes}/{self.k} {self.interval.shown()}"

    def as_dict(self) -> JsonObject:
        return {
            "passes": self.passes,
            "k": self.k,
            "interval": list[Json](self.interval.rounded()),
            "model_calls": self.model_calls,
        }


@dataclass(frozen=True)
class LiveCase:
    """A live case's verdict and the numbers behind it."""

    case: str
    verdict: LiveVerdict
    base: Tally
    head: Tally
    p_value: float | None  # the drop test's p (the rise test's when head passed more)
    level: float  # the level the drop test was held to (gate.alpha, or Holm's)
    k_needed: int | None = None  # insufficient_data: K per side with power >= 0.8
    k_capped: bool = False  # insufficient_data beyond stats.exact.K_CAP attempts per side
    why: str = ""  # not_comparable: what differs

    @property
    def model_calls(self) -> int:
        return self.base.model_calls + self.head.model_calls

    def line(self) -> str:
        """`base 9/10 [0.60, 0.98], head 3/10 [0.11, 0.60], p=0.0099`, and what it lacks."""
        said = f"base {self.base.shown()}, head {self.head.shown()}"
        if self.p_value is not None:
            said += f", p={self.p_value:.4g}"
        if self.verdict is LiveVerdict.INSUFFICIENT_DATA:
            said += f"; {needed_text(self)}"
        if self.why:
            said += f"; {self.why}"
        return said + f"; {self.model_calls} model call(s)"

    def as_dict(self) -> JsonObject:
        return {
            "verdict": self.verdict.value,
            "base": self.base.as_dict(),
            "head": self.head.as_dict(),
            "p_value": None if self.p_value is None else round(self.p_value, 6),
            "alpha": self.level,
            "k_needed": self.k_needed,
            "model_calls": self.model_calls,
            "not_comparable": self.why or None,
        }


def needed_text(case: LiveCase) -> str:
    if case.k_capped:
        return "more than 100 attempts per side needed to see the drop"
    return f"K={case.k_needed} per side needed to see the drop"


@dataclass(frozen=True)
class SideRate:
    """A side's pass rate over every attempt of the live cases."""

    passes: int
    attempts: int

    def as_dict(self) -> JsonObject:
        return {
            "passes": self.passes,
            "attempts": self.attempts,
            "interval": list[Json](wilson(self.passes, self.attempts).rounded()),
        }

    def shown(self) -> str:
        return f"{self.passes}/{self.attempts} {wilson(self.passes, self.attempts).shown()}"


@dataclass(frozen=True)
class SuiteTest:
    """The whole run: pass rates, the sign test, and whether it says `suite regression`."""

    base: SideRate
    head: SideRate
    sign: SignTest
    regression: bool
    blocks: bool

    def as_dict(self) -> JsonObject:
        return {
            "base": self.base.as_dict(),
            "head": self.head.as_dict(),
            "test": "sign",
            "statistic": self.sign.drops,
            "drops": self.sign.drops,
            "rises": self.sign.rises,
            "p_value": round(self.sign.p_value, 6),
            "suite_regression": self.regression,
            "blocks": self.blocks,
        }


@dataclass(frozen=True)
class LiveDecision:
    """Every live case's verdict, by id, and the suite's."""

    cases: Mapping[str, LiveCase]
    suite: SuiteTest | None
    settings: GateSection
    shift: Shift | None = None  # `corpus diff`'s distribution shift over these cases


def is_live(outcome: CaseOutcome | None) -> bool:
    """A case that ran live with its attempts counted."""
    return outcome is not None and outcome.passes is not None and outcome.attempts is not None


def tally(outcome: CaseOutcome) -> Tally:
    """A live case's passes out of attempts, its calls, and the models and tools it used."""
    calls = outcome.live.calls if outcome.live is not None else ()
    return Tally(
        passes=outcome.passes or 0,
        k=outcome.attempts or 0,
        model_calls=len(calls),
        models=tuple(sorted({c.model for c in calls if c.model})),
        tools=tools_offered(outcome),
    )


def tools_offered(outcome: CaseOutcome) -> tuple[str, ...]:
    """The tool names the agent's model requests offered, over the replayed run."""
    names: set[str] = set()
    events = outcome.trajectory.events if outcome.trajectory is not None else ()
    for event in events:
        if isinstance(event, ModelCallEvent):
            for spec in event.request.tools or ():
                names.add(_tool_name(spec))
    return tuple(sorted(names))


def _tool_name(spec: object) -> str:
    if isinstance(spec, Mapping):
        function = spec.get("function")
        if isinstance(function, Mapping) and "name" in function:
            return str(function["name"])
        if "name" in spec:
            return str(spec["name"])
    return str(spec)


RECORDING_CHANGED = "the case's recording changed between base and head"
ONE_SIDE_LIVE = "one side replayed the recorded model, the other the live one"


def not_comparable(base: Tally, head: Tally) -> str:
    """What makes the two sides' live runs of a case incomparable; empty when nothing does."""
    if base.models and head.models and base.models != head.models:
        return f"models differ: base {', '.join(base.models)}, head {', '.join(head.models)}"
    if base.tools != head.tools:
        return f"tool sets differ: base {_names(base.tools)}, head {_names(head.tools)}"
    return ""


def _names(tools: Sequence[str]) -> str:
    return ", ".join(tools) if tools else "none"


def decide(
    pairs: Mapping[str, tuple[Tally, Tally]],
    settings: GateSection,
    known: Mapping[str, str] | None = None,
) -> LiveDecision:
    """The verdict of each live case (base and head tallies by id) and of the suite;
    `known`: cases already known not comparable, and why (an edited recording, ...)."""
    said = known or {}
    why = {c: said.get(c) or not_comparable(b, h) for c, (b, h) in pairs.items()}
    drops = {
        c: fisher_drop(b.passes, b.k, h.passes, h.k) for c, (b, h) in pairs.items() if not why[c]
    }
    levels = _levels(drops, settings)
    cases = {
        c: _case(c, b, h, why[c], drops.get(c), levels.get(c, settings.alpha), settings)
        for c, (b, h) in sorted(pairs.items())
    }
    return LiveDecision(cases, _suite(cases.values(), settings), settings)


def _levels(drops: Mapping[str, float], settings: GateSection) -> dict[str, float]:
    if settings.correction != "holm":
        return {c: settings.alpha for c in drops}
    ids = sorted(drops)
    return dict(zip(ids, holm([drops[c] for c in ids], settings.alpha), strict=True))


def _case(
    case: str,
    base: Tally,
    head: Tally,
    why: str,
    drop: float | None,
    level: float,
    settings: GateSection,
) -> LiveCase:
    if why or drop is None:
        return LiveCase(case, LiveVerdict.NOT_COMPARABLE, base, head, None, level, why=why)
    if head.rate < base.rate and below(drop, level):
        return LiveCase(case, LiveVerdict.REGRESSION, base, head, drop, level)
    rise = fisher_rise(base.passes, base.k, head.passes, head.k)
    if head.rate > base.rate and below(rise, settings.alpha):
        return LiveCase(case, LiveVerdict.IMPROVED, base, head, rise, level)
    p = rise if head.rate > base.rate else drop
    if base.rate < settings.min_base_rate:
        return LiveCase(case, LiveVerdict.UNRELIABLE_BASELINE, base, head, p, level)
    seen = power(base.rate, settings.min_detectable, base.k, head.k, settings.alpha)
    if seen >= 0.8:
        return LiveCase(case, LiveVerdict.UNCHANGED, base, head, p, level)
    needed = k_needed(base.rate, settings.min_detectable, settings.alpha)
    return LiveCase(
        case, LiveVerdict.INSUFFICIENT_DATA, base, head, p, level, needed, needed is None
    )


def _suite(cases: Iterable[LiveCase], settings: GateSection) -> SuiteTest | None:
    counted = [c for c in cases if c.verdict is not LiveVerdict.NOT_COMPARABLE]
    if not counted:
        return None
    base = SideRate(sum(c.base.passes for c in counted), sum(c.base.k for c in counted))
    head = SideRate(sum(c.head.passes for c in counted), sum(c.head.k for c in counted))
    sign = sign_test([c.head.rate - c.base.rate for c in counted])
    regression = sign.drops > sign.rises and below(sign.p_value, settings.alpha)
    return SuiteTest(base, head, sign, regression, regression and settings.block_on_suite)
