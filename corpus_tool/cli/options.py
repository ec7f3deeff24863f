"""What several commands share on the command line: the parser class, common options, and
the types that check an option's value."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

Handler = Callable[[argparse.Namespace], int]
Command = tuple[str, Callable[[argparse.ArgumentParser], None], Handler]
"""A command's one-line summary, the function adding its options, the function running it."""
EPILOG = "exit status: 0 all good, 1 checks found problems, 2 usage or input error"


class Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors: the message and where to read more, exit 2."""

    def error(self, message: str) -> NoReturn:
        first = message.strip().splitlines()[0] if message.strip() else "bad command line"
        self.exit(2, f"{self.prog}: error: {first} (see `{self.prog} --help`)\n")


def output_option(parser: argparse.ArgumentParser) -> None:
    """--format text|json, for the commands that report."""
    parser.add_argument(
        "--format",
        dest="output",
        choices=("text", "json"),
        default="text",
        help="text for people (default), json for machines",
    )


def corpus_of(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """The corpus the command runs on: -C DIR, else found from the current directory."""
    from corpus_tool.store.corpus import open_corpus

    return open_corpus(args.directory, Path.cwd())


def cache_option(parser: argparse.ArgumentParser) -> None:
    """--no-cache, for the commands that validate."""
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="check every case afresh (default: reuse the findings of unchanged cases, kept "
        "in the git dir or $CORPUS_CACHE_DIR)",
    )


def replay_options(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """What `replay` and `check` were asked, as the replay run takes it."""
    from corpus_tool.check.run import ReplayOptions
    from corpus_tool.replay.runner import RunOptions

    run = RunOptions(
        tuple(getattr(args, "cases", ())),
        args.mode,
        args.tier,
        args.repeat,
        args.workers,
        args.timeout,
        **live_options(args),
    )
    return ReplayOptions(
        run,
        args.output,
        args.junit,
        args.results,
        diff=args.diff,
        verbose=args.verbose,
        html=args.html,
    )


def args_run(parser: argparse.ArgumentParser) -> None:
    """The options of a replay run, shared by `replay` and `check`."""
    replay_engine_options(parser)
    parser.add_argument("--junit", type=Path, metavar="FILE", help="also write JUnit XML here")
    parser.add_argument(
        "--results", type=Path, metavar="FILE", help="also write the results JSON (gate input)"
    )
    html_option(parser)
    parser.add_argument(
        "--diff",
        action="store_true",
        help="for each failing case, show `corpus diff` of its recording and its replay",
    )
    parser.add_argument(
        "--repeat",
        type=repeat_count,
        default=1,
        metavar="N",
        help="replay each case N times (determinism; with --model live: passes out of N, "
        "a case some attempts pass is flaky)",
    )
    parser.add_argument(
        "--min-pass-rate",
        type=pass_rate,
        metavar="R",
        help="with --model live --repeat N: a case passing at least this share of its attempts "
        "(0 to 1) passes instead of being flaky",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also show each case's notes (request fields only one side carries) and the "
        "messages of checks not reached",
    )
    output_option(parser)


def html_option(parser: argparse.ArgumentParser) -> None:
    """--html FILE: also write the self-contained HTML report (replay, check, gate, diff)."""
    parser.add_argument(
        "--html",
        type=Path,
        metavar="FILE",
        help="also write a self-contained HTML report here (opens from disk; see corpus report)",
    )


def replay_engine_options(parser: argparse.ArgumentParser) -> None:
    """How cases are replayed and which: --mode, --tier, -n/--workers, --timeout (replay,
    check, gate)."""
    parser.add_argument(
        "--mode", choices=("strict", "lenient"), help="matching mode for every case (overrides)"
    )
    parser.add_argument("--tier", choices=("fast", "full", "archive"), help="only this tier")
    parser.add_argument(
        "-n",
        "--workers",
        type=worker_count,
        default=1,
        metavar="N",
        help="replay in N worker processes (default 1; auto: one per CPU core); "
        "the report is the same whatever N",
    )
    parser.add_argument(
        "--timeout",
        type=seconds,
        metavar="SECONDS",
        help="wall-clock limit of one replay of a case; past it the case is an error and its "
        "worker is replaced (default: corpus.yaml replay.timeout_s, else 60)",
    )
    live_engine_options(parser)


def live_engine_options(parser: argparse.ArgumentParser) -> None:
    """--model, --live-from, --max-model-calls: where the model's answers come from."""
    parser.add_argument(
        "--model",
        choices=("recorded", "live"),
        help="recorded: every answer from the recording (default: corpus.yaml replay.model); "
        "live: corpus.yaml replay.live_model answers, the tools from the recording",
    )
    parser.add_argument(
        "--live-from",
        type=sequence_number,
        metavar="SEQ",
        help="with --model live: the recorded model calls before trace seq SEQ answer in "
        "order, the live model from SEQ on",
    )
    parser.add_argument(
        "--max-model-calls",
        type=replay_budget,
        metavar="N",
        help="with --model live: start no new case once N live model calls were made "
        "(the rest are skipped, reason budget)",
    )


def live_options(args: argparse.Namespace) -> dict[str, Any]:
    """The RunOptions fields of the live options (what the command line gave)."""
    return {
        "model": getattr(args, "model", None),
        "live_from": getattr(args, "live_from", None),
        "max_model_calls": getattr(args, "max_model_calls", None),
        "min_pass_rate": getattr(args, "min_pass_rate", None),
    }


def pass_rate(text: str) -> float:
    """--min-pass-rate R: a share from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give a share of attempts from 0 to 1")
    return value


def sequence_number(text: str) -> int:
    """--live-from SEQ: a trace's seq number, 1 or more."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give a seq number of the trace (1 or more)")
    return int(text)


def repeat_count(text: str) -> int:
    """--repeat N: 1 to 1000 (0 would silently run once, a typo like 1000000 for hours)."""
    if not text.isdigit() or not 1 <= int(text) <= 1000:
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of runs from 1 to 1000")
    return int(text)


def worker_count(text: str) -> int:
    """-n N: 1 to 256, or `auto` for the CPU cores this process may use."""
    if text == "auto":
        affinity = getattr(os, "sched_getaffinity", None)
        return max(1, len(affinity(0)) if affinity else os.cpu_count() or 1)
    if not text.isdigit() or not 1 <= int(text) <= 256:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give a number of workers from 1 to 256, or auto"
        )
    return int(text)


def seconds(text: str) -> float:
    """--timeout SECONDS: a positive number, at most a day."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value <= 86400:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give a number of seconds above 0, at most 86400"
        )
    return value


def replay_budget(text: str) -> int:
    """--max-replays N: 1 to 100000."""
    if not text.isdigit() or not 1 <= int(text) <= 100_000:
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of replays from 1 to 100000")
    return int(text)
