"""Replay workers from the grading process's side: feed them cases, collect, replace the broken.

A `Pool` runs jobs (one case, `runs` times) on up to `size` worker processes. Each worker
imports the agent once and replays many cases; all runs of a job go to one worker. A worker
holds its current run and, when every worker has work, queued runs (up to AHEAD while runs are
fast, one while they are slow: FAST_RUN_S), so it never waits
while the parent grades. One thread does it all: a selector waits for whichever worker answers
first, or for the earliest deadline. Jobs are taken from their iterable only as workers can
use them (as many per worker as it may hold), so a caller that reads and checks each case as its
job is taken works while the workers replay, and memory holds only the jobs in flight.

A worker that misbehaves never takes the run down with it: every way it can fail (past the
time limit, exited, killed, an unreadable reply, a fault it reports itself) ends the job it was
running with a `Fault`, the worker is stopped, a job queued behind it goes back to the queue
untouched, and a fresh worker takes over.
"""

from __future__ import annotations

import contextlib
import functools
import selectors
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from corpus_tool.replay.workers import model_link, wire
from corpus_tool.replay.workers.model_calls import ModelCalls
from corpus_tool.replay.workers.model_link import Answer, ModelReply
from corpus_tool.replay.workers.process import START_FLOOR_S, Failed, Fault, Launch, Worker

__all__ = ["Fault", "Job", "Launch", "Outcome", "Pool", "StartError"]

AHEAD = 8
"""Runs sent ahead to each worker (and jobs read ahead per worker): the worker works through
them without waiting for the grading process, and is woken once per batch, not per case."""
FAST_RUN_S = 0.02
"""Runs go AHEAD at a time only while the pool's runs take less than this: a batch of slow
runs queued on one worker would be waited for at the end while the other workers sit idle (8
runs of a 2 s agent: 16 s). Slower ones are sent as before, the running one and one more."""
REFILL = 2
"""A worker's queue is topped up once no more than this many runs wait in it."""
BATCH_BYTES = 32 * 1024
"""A batch stops growing past this size (a pipe holds 64 KiB): a write the worker cannot take
in at once would block the grading process while the worker's replies fill the other pipe."""


@dataclass(frozen=True)
class Job:
    """One case for a worker: the encoded case, and how many times to replay it."""

    request: bytes
    runs: int = 1


@dataclass(frozen=True)
class Outcome:
    """What a job came back with: a reply per finished run, the agent's output, any fault."""

    replies: tuple[dict[str, Any], ...]
    output: str
    fault: Fault | None
    duration_ms: float


class StartError(Exception):
    """The agent cannot be imported in a worker (its message is the one-line reason)."""


@dataclass
class _Progress:
    replies: list[dict[str, Any]] = field(default_factory=list)
    began: float | None = None  # when its first run reached the head of its worker's queue


@dataclass
class _Slot:
    """A place for one worker: started on demand, replaced after a failure."""

    worker: Worker | None = None
    starting: bool = False
    deadline: float | None = None  # of the run at the head of `sent` (or of the start)
    sent: deque[int] = field(default_factory=deque)  # job index of each run sent, oldest first
    tickets: deque[int] = field(default_factory=deque)  # the run number each of them carries
    runs: deque[int] = field(default_factory=deque)  # runs of its current job not sent yet
    paused: float | None = None  # time left of the run while the live model answers for it
    head_at: float | None = None  # when the run at the head of `sent` started

    @property
    def busy(self) -> bool:
        return self.starting or bool(self.sent)


class Pool:
    """Up to `size` workers for one corpus; use as a context manager, which stops them all."""

    def __init__(self, launch: Launch, size: int = 1, start: Callable[[Launch], Worker] = Worker):
        self.launch, self._start = launch, start
        self._slots = [_Slot() for _ in range(max(1, size))]
        self._ever_ready = False
        self.isolation = ""
        self._jobs: dict[int, Job] = {}  # taken and not finished, by their place in the iterable
        self._source: Iterator[Job] = iter(())
        self._taken = 0
        self._todo: deque[int] = deque()
        self._progress: dict[int, _Progress] = {}
        self._tickets = 0  # run numbers: each reply must carry the one of the run it answers
        self._answer_model: Answer | None = None
        self._just_in_time = False
        self._run_s: float | None = None  # a running mean of how long a run takes
        self._calls = ModelCalls(len(self._slots))

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self, count: int) -> None:
        """Start up to `count` workers now, before any job: their start (the interpreter, the
        sandbox, the agent's import) overlaps what the caller does until `run`, which takes
        their `ready` as it would from workers it started itself. One that fails at once is
        let go: `run` starts it again and reports what fails, if a job needs a worker."""
        for slot in self._slots[:count]:
            if slot.worker is not None:
                continue
            slot.worker = self._start(self.launch)
            limit = max(self.launch.timeout_s, START_FLOOR_S)
            slot.starting, slot.deadline = True, time.monotonic() + limit
            try:
                slot.worker.begin()
            except Failed:
                self._retire(slot)

    def close(self) -> None:
        """Stop every worker."""
        for slot in self._slots:
            self._retire(slot)
        self._calls.close()

    def run(
        self, jobs: Iterable[Job], answer: Answer | None = None, just_in_time: bool = False
    ) -> Iterator[tuple[int, Outcome]]:
        """Run every job; yields (index, outcome) as each finishes (StartError: no import).

        `answer` answers the model requests of live runs (model_link.py), here in the parent.
        `just_in_time`: a job is taken from `jobs` only when a worker is free to start it, and
        none is queued behind a running one, so what the iterable decides as it hands a job
        out (the --max-model-calls budget) holds at the moment the job starts.
        """
        self._answer_model, self._just_in_time = answer, just_in_time
        self._jobs, self._source, self._taken = {}, iter(jobs), 0
        self._todo, self._progress = deque(), {}
        selector = selectors.DefaultSelector()
        selector.register(self._calls.wake, selectors.EVENT_READ, None)
        for slot in self._slots:  # workers kept from an earlier run (the pytest plugin's)
            if slot.worker is not None:
                selector.register(slot.worker.replies, selectors.EVENT_READ, slot)
        try:
            while self._take() or any(s.busy or s.runs for s in self._slots):
                yield from self._feed(selector)
                yield from self._wait(selector)
        finally:
            selector.close()
            for slot in self._slots:
                if slot.busy:  # abandoned mid-run: these workers hold runs nobody will read
                    self._retire(slot)

    # -- feeding --------------------------------------------------------------------------

    def _take(self) -> bool:
        """Take jobs from the iterable until as many per worker wait as a worker may hold
        (`_ahead`; just in time: one per free worker); False when none waits."""
        while len(self._todo) < self._wanted():
            job = next(self._source, None)
            if job is None:
                break
            self._jobs[self._taken] = job
            self._todo.append(self._taken)
            self._taken += 1
        return bool(self._todo)

    def _wanted(self) -> int:
        if not self._just_in_time:
            return self._ahead() * len(self._slots)
        return sum(1 for s in self._slots if not (s.busy or s.runs or s.sent))

    def _feed(self, selector: selectors.BaseSelector) -> Iterator[tuple[int, Outcome]]:
        takers = sum(1 for s in self._slots if s.worker is not None and not s.sent and not s.runs)
        spare = len(self._todo) - takers  # jobs no started or idle worker will take
        for slot in self._slots:
            if slot.worker is None and spare > 0:
                spare -= 1
                yield from self._begin(slot, selector)
        idle = [s for s in self._slots if s.worker is not None and not s.sent and not s.runs]
        for slot in self._slots:
            if slot.worker is not None and not slot.starting:
                # queued runs only when no other worker waits for work (or is starting)
                waiting = any(other is not slot for other in idle)
                depth = 1 if waiting or self._just_in_time else self._ahead()
                yield from self._send(slot, selector, depth=depth)

    def _begin(
        self, slot: _Slot, selector: selectors.BaseSelector
    ) -> Iterator[tuple[int, Outcome]]:
        slot.worker = self._start(self.launch)
        limit = max(self.launch.timeout_s, START_FLOOR_S)
        slot.starting, slot.deadline = True, time.monotonic() + limit
        try:
            slot.worker.begin()
        except Failed as failed:
            yield from self._not_started(slot, failed.fault.reason, failed.output)
            return
        selector.register(slot.worker.replies, selectors.EVENT_READ, slot)

    def _send(
        self, slot: _Slot, selector: selectors.BaseSelector, depth: int
    ) -> Iterator[tuple[int, Outcome]]:
        """Top the worker's queue up to `depth` runs, in one write: it is woken once for them.
        A worker with more than REFILL runs queued is left alone until it has worked them down
        (a write to a sleeping worker costs a wake-up, which on a busy machine costs more than
        the frame)."""
        if slot.worker is None or (depth > 1 and len(slot.sent) > REFILL):
            return
        head = slot.sent[0] if slot.sent else None
        frames: list[bytes] = []
        size = 0
        while len(slot.sent) < depth and size < BATCH_BYTES:
            if not slot.runs:
                if not self._todo:
                    break
                index = self._todo.popleft()
                self._progress[index] = _Progress()
                slot.runs.extend([index] * max(1, self._jobs[index].runs))
            index = slot.runs.popleft()
            self._tickets += 1
            frames.append(wire.run_request(self._tickets, self._jobs[index].request))
            size += len(frames[-1])
            slot.sent.append(index)
            slot.tickets.append(self._tickets)
        if not frames:
            return
        try:
            slot.worker.send_many(frames)
        except Failed as failed:  # it died idle: blame this job, so the run always advances
            victim = head if head is not None else slot.sent[0]
            yield from self._fail(slot, selector, failed.fault, failed.output, victim)
            return
        if head is None:
            self._head_started(slot)

    def _ahead(self) -> int:
        """How many runs a busy worker may hold: AHEAD once runs are known to be fast."""
        fast = self._run_s is not None and self._run_s < FAST_RUN_S
        return AHEAD if fast else 2

    def _head_started(self, slot: _Slot) -> None:
        """The run at the head of `sent` is now running: its deadline starts."""
        now = time.monotonic()
        slot.deadline, slot.head_at = now + self.launch.timeout_s, now
        progress = self._progress[slot.sent[0]]
        progress.began = progress.began if progress.began is not None else now

    # -- collecting -------------------------------------------------------------------------

    def _wait(self, selector: selectors.BaseSelector) -> Iterator[tuple[int, Outcome]]:
        deadlines = [s.deadline for s in self._slots if s.busy and s.deadline is not None]
        if not deadlines and not self._calls.busy:
            return
        left = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
        for key, _ in selector.select(left):
            if key.data is None:  # live model calls finished
                yield from self._answered(selector)
            else:
                yield from self._answer(key.data, selector)
        now = time.monotonic()
        for slot in self._slots:  # past the deadline and silent: read() samples, then stops it
            if slot.busy and slot.deadline is not None and slot.deadline <= now:
                yield from self._answer(slot, selector)

    def _answer(
        self, slot: _Slot, selector: selectors.BaseSelector
    ) -> Iterator[tuple[int, Outcome]]:
        if slot.worker is None:
            return  # already handled in this round
        if not slot.busy or slot.paused is not None:  # it speaks unasked: unfit
            self._drop(slot, selector)
            return
        assert slot.deadline is not None
        try:
            reply = slot.worker.reply(slot.deadline, starting=slot.starting)
        except Failed as failed:
            if slot.starting:
                yield from self._not_started(slot, failed.fault.reason, failed.output, selector)
            else:
                yield from self._fail(slot, selector, failed.fault, failed.output)
            return
        if slot.starting:
            yield from self._started(slot, reply, selector)
        elif reply["kind"] == model_link.MODEL:
            yield from self._model_call(slot, reply, selector)
        else:
            yield from self._finished_run(slot, reply, selector)

    def _model_call(
        self, slot: _Slot, message: dict[str, Any], selector: selectors.BaseSelector
    ) -> Iterator[tuple[int, Outcome]]:
        """A live run's model request, answered here: on a thread (model_calls.py) when other
        workers may need the loop meanwhile. The worker's time limit stops while it waits: the
        time the model takes is not the agent's."""
        assert slot.worker is not None and slot.deadline is not None
        problem = None
        if message.get("run") != slot.tickets[0]:
            problem = "the worker asked the model for another run than it was given"
        elif self._answer_model is None:
            problem = "the worker asked for a live model in a run with the recorded model"
        try:
            body = model_link.request_of(message) if problem is None else {}
        except wire.WireError as err:
            problem = f"the worker sent an unusable model request: {err}"
        if problem is not None or self._answer_model is None:
            failed = slot.worker.failed(problem or "no live model")
            yield from self._fail(slot, selector, failed.fault, failed.output)
            return
        index = slot.sent[0]
        call = functools.partial(
            self._answer_model, index, len(self._progress[index].replies), body
        )
        slot.paused, slot.deadline = slot.deadline - time.monotonic(), None
        if len(self._slots) == 1:  # no other worker to keep going: no thread hand-off
            yield from self._resume(slot, call(), selector)
            return
        self._calls.start((self._slots.index(slot), slot.tickets[0]), call)

    def _answered(self, selector: selectors.BaseSelector) -> Iterator[tuple[int, Outcome]]:
        """Send each finished live model call's answer to its worker."""
        for (place, ticket), reply in self._calls.done():
            slot = self._slots[place]
            if slot.worker is None or slot.paused is None or list(slot.tickets)[:1] != [ticket]:
                continue  # the worker was stopped meanwhile
            yield from self._resume(slot, reply, selector)

    def _resume(
        self, slot: _Slot, reply: ModelReply, selector: selectors.BaseSelector
    ) -> Iterator[tuple[int, Outcome]]:
        """The model's answer to its worker; the run's clock runs again."""
        assert slot.worker is not None and slot.paused is not None
        slot.deadline, slot.paused = time.monotonic() + slot.paused, None
        try:
            slot.worker.send(model_link.encode_answer(reply))
        except Failed as failed:
            yield from self._fail(slot, selector, failed.fault, failed.output)

    def _started(
        self, slot: _Slot, reply: dict[str, Any], selector: selectors.BaseSelector
    ) -> Iterator[tuple[int, Outcome]]:
        if reply["kind"] == "ready":
            slot.starting, slot.deadline = False, None
            self._ever_ready, self.isolation = True, str(reply.get("isolation"))
            return
        assert slot.worker is not None
        error = str(reply.get("error")) if reply["kind"] == "import_error" else None
        failed = slot.worker.failed(error or "the worker answered its setup with something else")
        yield from self._not_started(slot, failed.fault.reason, failed.output, selector)

    def _finished_run(
        self, slot: _Slot, reply: dict[str, Any], selector: selectors.BaseSelector
    ) -> Iterator[tuple[int, Outcome]]:
        if reply.get("run") != slot.tickets[0]:  # stray bytes that happen to parse, or worse
            assert slot.worker is not None
            failed = slot.worker.failed("the worker answered for another run than it was given")
            yield from self._fail(slot, selector, failed.fault, failed.output)
            return
        index = slot.sent.popleft()
        slot.tickets.popleft()
        if slot.head_at is not None:
            took = time.monotonic() - slot.head_at
            self._run_s = took if self._run_s is None else 0.8 * self._run_s + 0.2 * took
        progress = self._progress[index]
        progress.replies.append(reply)
        if reply.get("fault"):
            fault = Fault(f"the agent broke its worker: {reply['fault']}")
            yield from self._fail(slot, selector, fault, "", victim=index)
            return
        slot.deadline = None
        if slot.sent:
            self._head_started(slot)
        if len(progress.replies) == max(1, self._jobs[index].runs):
            yield index, self._outcome(index, None, "")

    # -- failures -----------------------------------------------------------------------------

    def _fail(
        self,
        slot: _Slot,
        selector: selectors.BaseSelector,
        fault: Fault,
        output: str,
        victim: int | None = None,
    ) -> Iterator[tuple[int, Outcome]]:
        """The worker is gone: the running job fails, jobs queued behind it wait for another."""
        victim = victim if victim is not None else (slot.sent[0] if slot.sent else None)
        queued = [i for i in dict.fromkeys([*slot.sent, *slot.runs]) if i != victim]
        self._drop(slot, selector)
        for index in reversed(queued):
            self._progress.pop(index, None)
            self._todo.appendleft(index)
        if victim is not None:
            yield victim, self._outcome(victim, fault, output)

    def _not_started(
        self,
        slot: _Slot,
        reason: str,
        output: str,
        selector: selectors.BaseSelector | None = None,
    ) -> Iterator[tuple[int, Outcome]]:
        """A worker that never became ready: an input error at first, later the next job's."""
        self._drop(slot, selector)
        if not self._ever_ready:
            raise StartError(_at_import(self.launch, reason, output))
        if self._todo:
            index = self._todo.popleft()
            self._progress[index] = _Progress()
            fault = Fault(f"a new replay worker could not start: {reason}")
            yield index, self._outcome(index, fault, output)

    def _drop(self, slot: _Slot, selector: selectors.BaseSelector | None) -> None:
        if slot.worker is not None and selector is not None:
            with contextlib.suppress(KeyError, ValueError):
                selector.unregister(slot.worker.replies)
        self._retire(slot)

    def _retire(self, slot: _Slot) -> None:
        if slot.paused is not None and slot.tickets:
            self._calls.drop((self._slots.index(slot), slot.tickets[0]))
        slot.paused = None
        if slot.worker is not None:
            slot.worker.stop()
        slot.worker, slot.starting, slot.deadline = None, False, None
        slot.sent.clear()
        slot.tickets.clear()
        slot.runs.clear()

    def _outcome(self, index: int, fault: Fault | None, output: str) -> Outcome:
        progress = self._progress.pop(index)
        self._jobs.pop(index, None)
        began = progress.began if progress.began is not None else time.monotonic()
        duration = round((time.monotonic() - began) * 1000, 1)
        said = "".join(str(r.get("output") or "") for r in progress.replies) + output
        return Outcome(tuple(progress.replies), said, fault, duration)


def _at_import(launch: Launch, reason: str, output: str) -> str:
    """One line: why no worker ever became ready, with the last line it printed."""
    config = launch.setup.corpus_root / "corpus.yaml"
    if reason.startswith(f"{config}: "):  # the worker's own import error, already complete
        return reason
    tail = output.strip().splitlines()[-1:]
    said = f" (its last output: {tail[0][:200]})" if tail else ""
    return f"{config}: agent.entrypoint: importing it in a replay worker failed: {reason}{said}"
