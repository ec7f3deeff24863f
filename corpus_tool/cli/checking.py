"""The commands that read and run the corpus: validate, affected, replay, check, explain,
minimize, diff."""

from __future__ import annotations

import argparse
import os
import sys
from datetime import date
from pathlib import Path

from corpus_tool.cli.options import (
    Command,
    args_run,
    cache_option,
    corpus_of,
    html_option,
    output_option,
    repeat_count,
    replay_budget,
    replay_options,
    seconds,
)


def _cmd_validate(args: argparse.Namespace) -> int:
    from corpus_tool.commands.validate import validate

    root = (Path.cwd() / args.directory).resolve() if args.directory is not None else None
    today = date.today()
    cached = not args.no_cache
    return validate(
        root,
        args.paths,
        Path.cwd(),
        today,
        args.output,
        sys.stdout,
        os.environ,
        args.staged,
        cached,
    )


def _args_validate(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        type=Path,
        help="files to check (as pre-commit passes them) or directories (every corpus file "
        "under them); default: the whole corpus",
    )
    parser.add_argument(
        "--staged",
        action="store_true",
        help="check what the git index holds for every corpus the staged change touches, "
        "deleted files included (the pre-commit hook); -C DIR keeps one corpus",
    )
    cache_option(parser)
    output_option(parser)


def _cmd_affected(args: argparse.Namespace) -> int:
    from corpus_tool.commands.affected import AffectedOptions, affected
    from corpus_tool.select.shard import ShardSpec

    options = AffectedOptions(
        base=args.base,
        head=args.head,
        staged=args.staged,
        worktree=args.worktree,
        explain=args.explain,
        output=args.output,
        tiers=tuple(t for given in args.tier for t in given.split(",") if t),
        shard=ShardSpec.parse(args.shard) if args.shard else None,
    )
    return affected(args.directory, Path.cwd(), options, sys.stdout, sys.stderr)


def _args_affected(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--base", required=True, metavar="REV", help="diff from merge-base(REV, head)"
    )
    side = parser.add_mutually_exclusive_group()
    side.add_argument("--head", metavar="REV", help="the head revision (default: HEAD)")
    side.add_argument("--staged", action="store_true", help="the head side is the index")
    side.add_argument(
        "--worktree",
        action="store_true",
        help="the head side is the working tree, uncommitted and untracked files included",
    )
    parser.add_argument(
        "--explain", action="store_true", help="name the changed file and rule behind each case"
    )
    parser.add_argument(
        "--format",
        dest="output",
        choices=("lines", "json", "pytest", "github-matrix", "text"),
        default="lines",
        help="lines: one id per line (default); json; pytest: plugin arguments; "
        "github-matrix: a CI matrix; text: for people",
    )
    parser.add_argument(
        "--tier",
        action="append",
        default=[],
        metavar="TIER",
        help="keep cases of this tier (fast, full, archive); repeat or comma-separate",
    )
    parser.add_argument(
        "--shard",
        metavar="K/N",
        help="only shard K of N, balanced by recorded event count (N alone: every shard, "
        "for --format json or github-matrix)",
    )


def _cmd_replay(args: argparse.Namespace) -> int:
    from corpus_tool.commands.replay import replay

    return replay(corpus_of(args), replay_options(args), sys.stdout, date.today())


def _cmd_check(args: argparse.Namespace) -> int:
    from corpus_tool.commands.check import check

    options = replay_options(args)
    today, cwd = date.today(), Path.cwd()
    return check(corpus_of(args), options, today, cwd, sys.stdout, cached=not args.no_cache)


def _args_check(parser: argparse.ArgumentParser) -> None:
    args_run(parser)
    cache_option(parser)


def _args_replay(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("cases", nargs="*", metavar="CASE", help="case ids (default: all)")
    args_run(parser)


def _cmd_regrade(args: argparse.Namespace) -> int:
    from corpus_tool.check.run import ReplayOptions
    from corpus_tool.commands.regrade import RegradeOptions, regrade
    from corpus_tool.replay.runner import RunOptions

    cases = tuple(c for given in args.cases for c in given.split(",") if c)
    shown = ReplayOptions(
        RunOptions(cases),
        args.output,
        args.junit,
        args.results,
        diff=args.diff,
        verbose=args.verbose,
        html=args.html,
    )
    options = RegradeOptions(args.stored, shown, cases, args.judge, args.repeat)
    return regrade(corpus_of(args), options, date.today(), sys.stdout)


def _args_regrade(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "stored",
        type=Path,
        metavar="RESULTS",
        help="a results document (`corpus check|replay --results FILE`): its stored runs are "
        "graded, nothing is replayed",
    )
    parser.add_argument(
        "--cases",
        action="append",
        default=[],
        metavar="CASE",
        help="regrade only these cases of the document; repeat or comma-separate "
        "(default: every case it holds)",
    )
    parser.add_argument(
        "--judge",
        metavar="NAME",
        help="also ask the judge registered under NAME in corpus.yaml `judges` about each "
        "graded run (the recording as A, the stored run as B)",
    )
    parser.add_argument(
        "--repeat",
        type=repeat_count,
        metavar="N",
        help="with --judge: ask it N times a case and report how often it disagreed with "
        "itself (judge variance; default 1)",
    )
    parser.add_argument("--junit", type=Path, metavar="FILE", help="also write JUnit XML here")
    parser.add_argument(
        "--results",
        type=Path,
        metavar="FILE",
        help="also write the regraded results JSON (gate input; regrade reads it again)",
    )
    html_option(parser)
    parser.add_argument(
        "--diff",
        action="store_true",
        help="for each failing case, show `corpus diff` of its recording and its stored run",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also show each case's notes and the messages of checks not reached",
    )
    output_option(parser)


def _cmd_explain(args: argparse.Namespace) -> int:
    from corpus_tool.commands.explain import explain

    return explain(args.topic, args.output, sys.stdout)


def _cmd_serve(args: argparse.Namespace) -> int:
    from corpus_tool.commands.serve import ServeOptions, serve

    options = ServeOptions(args.case, args.host, args.port, args.results)
    return serve(corpus_of(args), options, sys.stdout)


def _args_serve(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("case", metavar="CASE", help="the case id")
    parser.add_argument(
        "--port",
        type=int,
        default=0,
        metavar="N",
        help="the port to listen on (default 0: any free one; the printed URLs name it)",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        metavar="H",
        help="the loopback address to listen on (default 127.0.0.1; ::1 and localhost "
        "too; any other address is refused, exit 2)",
    )
    parser.add_argument(
        "--results",
        type=Path,
        metavar="FILE",
        help="write the results JSON here (default: a temporary file, named at exit)",
    )


def _args_explain(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "topic",
        nargs="?",
        metavar="CHECK",
        help="a check name (tools.args) or an expect key (tools); default: list every check",
    )
    output_option(parser)


def _cmd_minimize(args: argparse.Namespace) -> int:
    from corpus_tool.commands.minimize import MinimizeOptions, minimize
    from corpus_tool.minimize.case import Asked

    asked = Asked(args.until, args.mode, args.max_replays, args.model)
    options = MinimizeOptions(args.case, asked, args.dry_run, args.output, args.timeout)
    return minimize(corpus_of(args), options, sys.stdout, os.environ, sys.stderr)


def _args_minimize(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("case", metavar="CASE", help="the case id")
    parser.add_argument(
        "--until",
        metavar="TRIGGER",
        help="what must still happen: a check name (tools.args), a divergence kind "
        "(ToolArguments) or an error type (ZeroDivisionError); default: expected.yaml's "
        "trigger, else the recorded error type, else the first failing check",
    )
    parser.add_argument(
        "--max-replays",
        type=replay_budget,
        default=500,
        metavar="N",
        help="stop after N replays and keep the smallest trace found (default 500)",
    )
    parser.add_argument(
        "--mode",
        choices=("strict", "lenient"),
        help="replay candidates in this mode (default: the case's own)",
    )
    parser.add_argument(
        "--model",
        choices=("recorded", "live"),
        help="where each candidate's model answers come from (default: the case's own; "
        "live: corpus.yaml replay.live_model)",
    )
    parser.add_argument(
        "--timeout",
        type=seconds,
        metavar="SECONDS",
        help="wall-clock limit of one replay of a candidate; past it the candidate does not "
        "reproduce and its worker is replaced (default: corpus.yaml replay.timeout_s, else 60)",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="report what would be removed, write nothing"
    )
    output_option(parser)


def _cmd_diff(args: argparse.Namespace) -> int:
    from corpus_tool.commands.diff import DiffOptions, diff

    ignore = tuple(name for given in args.ignore for name in given.split(",") if name)
    options = DiffOptions(args.a, args.b, args.output, ignore, args.judge, args.html)
    return diff(options, sys.stdout, lambda: corpus_of(args))


def _args_diff(parser: argparse.ArgumentParser) -> None:
    what = (
        "a trace.yaml, a case directory or a case id of the corpus, or a results document "
        "(replay --results FILE)"
    )
    parser.add_argument("a", type=Path, metavar="A", help=f"the base run: {what}")
    parser.add_argument("b", type=Path, metavar="B", help="the run compared with A (same kinds)")
    parser.add_argument(
        "--format",
        dest="output",
        choices=("text", "json", "markdown"),
        default="text",
        help="text for people (default), json for machines, markdown for a pull request",
    )
    parser.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="FIELD",
        help="a field not to compare: a name anywhere (idempotency_key) or a dotted path "
        "(arguments.note); repeat or comma-separate",
    )
    parser.add_argument(
        "--judge",
        metavar="NAME",
        help="also ask the judge registered under this name in corpus.yaml `judges`",
    )
    html_option(parser)


AGENT_HELP = (
    "The agent: corpus.yaml agent.entrypoint names a module:callable, imported in worker "
    "processes with the root of the git repository that holds corpus.yaml first on sys.path "
    "and called as run(case_input, rt) for each case; it reaches the model and the tools only "
    "through the runtime (rt.model(messages, tools=...), rt.tool(name, arguments), rt.now(), "
    "rt.random, rt.emit(...)) and returns {status, output}. "
    "`from corpus_tool import Runtime, ToolError`. Or unchanged: a plain run(case_input), "
    "or agent.command (any executable; {input} is the case input as a JSON file), whose "
    "openai/anthropic client the worker points at doubles answered from the recording "
    "(OPENAI_BASE_URL, ANTHROPIC_BASE_URL, dummy keys)."
)


COMMANDS: dict[str, Command] = {
    "serve": (
        "answer one case's model requests as the OpenAI and Anthropic APIs would, for an agent "
        "you start yourself (prints OPENAI_BASE_URL=... lines; at exit, Ctrl-C or the last "
        "recorded request answered, the verdict as check grades it)",
        _args_serve,
        _cmd_serve,
    ),
    "validate": (
        "check schema, completeness, redaction (no unredacted personal data or secret; every "
        "case under the corpus key) and waivers of files, directories, the staged change "
        "(deletions included) or the whole corpus",
        _args_validate,
        _cmd_validate,
    ),
    "affected": (
        "the cases a git diff can affect, and why",
        _args_affected,
        _cmd_affected,
    ),
    "replay": (
        "replay cases against the agent and grade them",
        _args_replay,
        _cmd_replay,
    ),
    "check": (
        "validate, replay and grade the whole corpus",
        _args_check,
        _cmd_check,
    ),
    "regrade": (
        "grade the runs a results document holds against the current expected.yaml files, "
        "without running any agent, model or tool",
        _args_regrade,
        _cmd_regrade,
    ),
    "explain": (
        "how to write a check of expected.yaml: its YAML example and when it passes",
        _args_explain,
        _cmd_explain,
    ),
    "minimize": (
        "shrink a case to the fewest events that still reproduce its trigger",
        _args_minimize,
        _cmd_minimize,
    ),
    "diff": (
        "compare two traces or runs step by step: what changed, and a verdict",
        _args_diff,
        _cmd_diff,
    ),
}
"""This module's commands: (summary, options, handler) by name."""
