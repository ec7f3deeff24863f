"""The grading process's side of a live run: the live model, loaded once, and the book of
every call it answered (usage, latency, provider errors), per case and for the whole run.

`LiveRun.open` imports `replay.live_model` and calls the factory before any case runs, so a
factory that does not import, raises or returns no callable is one line and exit 2. Each
model request a worker sends is answered by `answer` (provider errors retried), and written in
the book under its case's job; `finish` puts the case's share on its result.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.model.config import ReplaySection
from corpus_tool.model.expected import Expected
from corpus_tool.model.results import Verdict
from corpus_tool.replay.cases import CaseResult
from corpus_tool.replay.live import (
    LIVE,
    LiveCall,
    LiveRecord,
    live_spec,
    model_of,
    unmatched_calls,
)
from corpus_tool.replay.provider import ModelCallable, RetryPolicy, call_live
from corpus_tool.replay.workers.loader import imported
from corpus_tool.replay.workers.model_link import ModelReply
from corpus_tool.replay.workers.stdio import described
from corpus_tool.replay.workers.wire import CaseRequest
from corpus_tool.store.corpus import Corpus

BUDGET = "budget"
"""The reason of a case skipped because --max-model-calls was spent."""


@dataclass
class Totals:
    """What the live model cost the run."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    model_ms: float = 0.0
    budget_skipped: int = 0

    @classmethod
    def of(cls, results: Iterable[CaseResult]) -> Totals | None:
        """The totals of a run's results; None when no case ran live."""
        found = [r for r in results if r.live is not None or r.reason == BUDGET]
        if not found:
            return None
        totals = cls(budget_skipped=sum(1 for r in found if r.reason == BUDGET))
        for result in found:
            for call in result.live.calls if result.live is not None else ():
                totals.add(call)
        return totals

    def add(self, call: LiveCall) -> None:
        self.calls += 1
        self.input_tokens += call.input_tokens
        self.output_tokens += call.output_tokens
        self.model_ms = round(self.model_ms + call.duration_ms, 2)

    def as_dict(self) -> dict[str, Any]:
        """The results document's `live` totals."""
        return {
            "model_calls": self.calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "model_ms": self.model_ms,
            "skipped_budget": self.budget_skipped,
        }

    def text(self) -> str:
        """One line for the text report."""
        line = (
            f"live model: {self.calls} call(s), {self.input_tokens} input and "
            f"{self.output_tokens} output tokens, {self.model_ms / 1000:.2f} s in the model"
        )
        if self.budget_skipped:
            line += (
                f"; {self.budget_skipped} case(s) skipped: the --max-model-calls budget was spent"
            )
        return line


@dataclass
class LiveRun:
    """The live model of one run and its book (None as `model`: no case is live)."""

    config: ReplaySection  # corpus.yaml's replay:
    override: str | None = None
    live_from: int | None = None
    max_calls: int | None = None
    min_pass_rate: float | None = None
    model: ModelCallable | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    totals: Totals = field(default_factory=Totals)
    _book: dict[int, list[LiveCall]] = field(default_factory=dict)
    _stack: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)
    _lock: threading.Lock = field(default_factory=threading.Lock)  # calls run on threads

    @classmethod
    @contextlib.contextmanager
    def open(
        cls,
        corpus: Corpus,
        override: str | None = None,
        live_from: int | None = None,
        max_calls: int | None = None,
        min_pass_rate: float | None = None,
        timeout_s: float | None = None,
    ) -> Iterator[LiveRun]:
        """The run's live side; the factory is loaded now when the run is live. An attempt at
        a model call may take the run's time limit (`timeout_s`, --timeout, else
        replay.timeout_s)."""
        config = corpus.config.replay
        run = cls(config, override, live_from, max_calls, min_pass_rate)
        run.retry = RetryPolicy(
            config.live.retries,
            config.live.backoff_s,
            timeout_s=float(timeout_s or config.timeout_s),
        )
        with run._stack:
            if (override or config.model) == LIVE:
                run.load(corpus)
            yield run

    def load(self, corpus: Corpus) -> ModelCallable:
        """Import `replay.live_model` and call the factory (once)."""
        if self.model is not None:
            return self.model
        spec = self.config.live_model
        if not spec or ":" not in spec:
            raise InputError(
                "replay.live_model: name the factory of the live model as pkg.module:factory "
                "(a live run needs one; see `corpus replay --help`)",
                corpus.config_path,
            )
        factory = self._stack.enter_context(imported(corpus, spec, "replay.live_model"))
        try:
            made = factory()
        except Exception as err:  # the team's code: one line, before any case runs
            raise InputError(
                f"replay.live_model: {spec} raised {type(err).__name__}: {described(err)}",
                corpus.config_path,
            ) from None
        if not callable(made):
            raise InputError(
                f"replay.live_model: {spec} returned {type(made).__name__}, not a callable "
                "model(messages, *, tools=..., model=...) -> ModelResponse",
                corpus.config_path,
            )
        model: ModelCallable = made
        self.model = model
        return model

    def request(self, corpus: Corpus, request: CaseRequest, expected: Expected) -> CaseRequest:
        """The case as a worker replays it: live when --model, the case or the corpus says."""
        if model_of(self.config, expected, self.override) != LIVE:
            return request
        self.load(corpus)
        spec = live_spec(self.config, expected, self.live_from)
        return replace(request, mode=LIVE, live=spec)

    def spent(self) -> bool:
        """--max-model-calls reached: no new case starts."""
        with self._lock:
            return self.max_calls is not None and self.totals.calls >= self.max_calls

    def answer(self, job: int, attempt: int, body: dict[str, Any]) -> ModelReply:
        """A worker's model request, answered by the live model (model_link.Answer)."""
        if self.model is None:  # only a live case's worker asks; anything else is refused
            return ModelReply(None, error="this run has no live model")
        called = call_live(self.model, body, self.retry)
        response = called.response
        usage = response.usage if response is not None else None
        with self._lock:
            step = len([c for c in self._book.get(job, []) if c.attempt == attempt]) + 1
        call = LiveCall(
            attempt,
            step,
            response.model if response is not None else None,
            usage.input_tokens if usage else 0,
            usage.output_tokens if usage else 0,
            called.duration_ms,
            called.errors,
            called.failed is not None,
        )
        with self._lock:
            self._book.setdefault(job, []).append(call)
            self.totals.add(call)
        if response is None:
            failed = called.failed
            assert failed is not None
            return ModelReply(None, None, called.duration_ms, failed.status, failed.message)
        return ModelReply(response, response.model, called.duration_ms)

    def finish(self, job: int, attempts: Sequence[CaseResult]) -> CaseResult:
        """A live case's result from its graded runs (one per --repeat attempt) and its calls.

        An attempt whose provider never answered is an error naming the provider's status
        (never a pass, whatever the agent made of it). One attempt: its verdict. Several: passed
        when all pass, failed (or error) when none does, else `flaky` — unless
        --min-pass-rate lets the rate pass; the result shown is the first attempt that did not
        pass.
        """
        with self._lock:
            calls = tuple(self._book.pop(job, []))
        graded = [
            _provider_failed(r, [c for c in calls if c.attempt == i])
            for i, r in enumerate(attempts)
        ]
        passes = sum(1 for r in graded if r.verdict is Verdict.PASSED)
        shown = next((r for r in graded if r.verdict is not Verdict.PASSED), graded[0])
        events = shown.trajectory.events if shown.trajectory is not None else ()
        record = LiveRecord(
            calls,
            tuple(unmatched_calls(events)),
            self.live_from,
            len(graded),
            passes,
            tuple(graded) if len(graded) > 1 else (),
        )
        verdict = shown.verdict
        if 0 < passes < len(graded) and shown.verdict in (Verdict.FAILED, Verdict.ERROR):
            rate = passes / len(graded)
            enough = self.min_pass_rate is not None and rate >= self.min_pass_rate
            verdict = Verdict.PASSED if enough else Verdict.FLAKY
        return replace(shown, verdict=verdict, live=record)

    def skip(self, result: CaseResult) -> CaseResult:
        """A case not started: the budget is spent."""
        self.totals.budget_skipped += 1
        return result


def _provider_failed(result: CaseResult, calls: Sequence[LiveCall]) -> CaseResult:
    """The attempt as an error when one of its live calls never got an answer."""
    failed = next((c for c in calls if c.failed and c.errors), None)
    if failed is None or result.verdict is Verdict.SKIPPED:
        return result
    last = failed.errors[-1]
    return replace(
        result,
        verdict=Verdict.ERROR,
        error=f"the live model's provider failed with status {last.status} "
        f"after {len(failed.errors)} attempt(s): {last.message}",
    )
