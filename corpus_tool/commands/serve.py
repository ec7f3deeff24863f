"""`corpus serve CASE`: the provider doubles of one case, outside a worker, for an agent the
team starts itself (another language, a container, a debugger).

It prints the base URLs as shell lines, answers the agent's requests from the recording as a
replay worker would (strict or lenient, divergences with their kinds), and at exit (Ctrl-C, a
divergence, or the last recorded model call answered) grades the run as `check` grades it: the
verdict, the divergences, and `results: PATH`. The agent's own final output is not seen here:
the run ends with the recorded status and the last answer's content when every recorded call
was used, else `unknown`. Loopback only: any other --host is refused.
"""

from __future__ import annotations

import ipaddress
import os
import signal
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from corpus_tool.errors import UsageError
from corpus_tool.grade import grade_checks
from corpus_tool.model.events import ModelCallEvent
from corpus_tool.model.trace import Trace
from corpus_tool.replay.cases import CaseResult, Ran, case_request, judge_case, load_case
from corpus_tool.replay.doubles.server import Doubles
from corpus_tool.replay.engine import CaseSpec, replay
from corpus_tool.replay.results import detail_lines, document, headline, write_results
from corpus_tool.replay.runner import RunOptions, requested_cases
from corpus_tool.replay.runtime import Runtime
from corpus_tool.store.corpus import Corpus

POLL_S = 0.05


@dataclass(frozen=True)
class ServeOptions:
    """What the command line asked of `corpus serve`."""

    case: str
    host: str = "127.0.0.1"
    port: int = 0
    results: Path | None = None


def loopback(host: str) -> bool:
    """Whether `host` names the loopback (`localhost`, 127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(corpus: Corpus, options: ServeOptions, out: TextIO) -> int:
    """Serve the case until the run ends; print the verdict; 0 passed, 1 failed."""
    if not loopback(options.host):
        raise UsageError(
            f"--host {options.host}: corpus serve listens on the loopback only "
            "(127.0.0.1, ::1 or localhost): the answers are the recording's, for this machine"
        )
    (case_id,) = requested_cases(corpus, RunOptions((options.case,)))
    loaded = load_case(corpus, case_id)
    request = case_request(corpus, loaded, None)
    trace = loaded.trace
    spec = CaseSpec(trace, loaded.expected, request.mode, request.ignored, request.request_fields)
    host = "127.0.0.1" if options.host == "localhost" else options.host
    try:
        doubles = Doubles(host, options.port)
    except OSError as err:
        raise UsageError(
            f"cannot listen on {options.host}:{options.port}: {err.strerror or err}; "
            "choose another --port (0: any free one)"
        ) from None
    lines = [f"{key}={value}\n" for key, value in _shown_env(doubles).items()]
    lines.append(f"# serving case {case_id} ({request.mode}); Ctrl-C ends the run\n")

    def announce() -> None:  # once the case answers: a client may start at the first line
        out.write("".join(lines))
        out.flush()

    stop = threading.Event()
    doubles.start()
    try:
        with _interrupt(stop):
            replayed = replay(_waiting(doubles, trace, stop, announce), spec)
    finally:
        doubles.close()
    result = judge_case(corpus, loaded, request, Ran((replayed,)), grader=grade_checks)
    path = options.results or _temporary()
    write_results(path, document(corpus, [result], "serve"))
    _report(out, result, path)
    return 1 if result.counts_as_failure else 0


def _shown_env(doubles: Doubles) -> dict[str, str]:
    env = doubles.env()
    return {k: v for k, v in env.items() if k.endswith("_BASE_URL")} | {
        k: v for k, v in env.items() if k.endswith("_API_KEY")
    }


def _waiting(
    doubles: Doubles, trace: Trace, stop: threading.Event, announce: Callable[[], None]
) -> Any:
    """The 'agent' replay runs: it waits while the real one, elsewhere, sends its requests."""
    recorded = sum(1 for e in trace.events if isinstance(e, ModelCallEvent))

    def agent(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
        with doubles.serving(rt) as case:
            announce()
            while not stop.wait(POLL_S):
                if case.failure is not None or _answered(rt) >= recorded:
                    break
        case.reraise()
        if _answered(rt) >= recorded and rt.last_answer is not None:
            return {"status": trace.terminal.status, "output": rt.last_answer.response.content}
        return {"status": "unknown", "output": None}

    return agent


def _answered(rt: Runtime) -> int:
    """Recorded model calls answered (a recorded provider refusal, `extra.error`, included)."""
    return sum(
        1 for e in rt.events if isinstance(e, ModelCallEvent) and not set(e.extra or ()) - {"error"}
    )


@contextmanager
def _interrupt(stop: threading.Event) -> Iterator[None]:
    """Ctrl-C (and SIGTERM) end the run instead of the process: the verdict is still printed."""
    handlers = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        handlers[sig] = signal.signal(sig, lambda *_: stop.set())
    try:
        yield
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)


def _temporary() -> Path:
    handle, name = tempfile.mkstemp(prefix="corpus-serve-", suffix=".json")
    os.close(handle)
    return Path(name)


def _report(out: TextIO, result: CaseResult, path: Path) -> None:
    out.write(headline(result) + "\n")
    for line in detail_lines(result):
        out.write(line + "\n")
    out.write(f"results: {path}\n")
