"""The commands of the merge gate: gate, waivers, status."""

from __future__ import annotations

import argparse
import os
import sys
from datetime import date
from pathlib import Path

from corpus_tool.cli.options import (
    EPILOG,
    Command,
    corpus_of,
    html_option,
    live_options,
    output_option,
    repeat_count,
    replay_engine_options,
)
from corpus_tool.errors import UsageError


def _cmd_gate(args: argparse.Namespace) -> int:
    from corpus_tool.commands.gate import GateOptions, gate
    from corpus_tool.gate.revisions import Revisions
    from corpus_tool.replay.runner import RunOptions

    if args.documents and (args.base or args.head or args.all or args.head_results):
        raise UsageError("give two results files or --base REV, not both")
    if not args.documents and not args.base:
        raise UsageError("give --base REV (replay both revisions) or BASE.json HEAD.json")
    if args.documents and len(args.documents) != 2:
        raise UsageError(f"give two results files (BASE.json HEAD.json), not {len(args.documents)}")
    if args.head and args.head_results:
        raise UsageError("give --head REV or --head-results FILE, not both")
    if args.repeat is not None and args.documents:
        raise UsageError("--repeat replays: give it with --base REV, not with two results files")
    revisions = Revisions(args.base, args.head, args.all, args.head_results) if args.base else None
    run = RunOptions((), args.mode, args.tier, 1, args.workers, args.timeout, **live_options(args))
    options = GateOptions(
        tuple(args.documents),
        revisions,
        run,
        args.output,
        args.junit,
        args.markdown,
        args.html,
        repeat=args.repeat,
        max_repeat=args.max_repeat,
    )
    return gate(
        args.directory, Path.cwd(), options, date.today(), sys.stdout, sys.stderr, os.environ
    )


def _args_gate(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "documents",
        nargs="*",
        type=Path,
        metavar="BASE.json HEAD.json",
        help="judge two results files (corpus replay|check --results FILE) instead of "
        "replaying: the base run's and the head run's",
    )
    parser.add_argument(
        "--base",
        metavar="REV",
        help="replay the affected cases on the merge base of REV and the head (a temporary "
        "git worktree) and on the head, and compare",
    )
    parser.add_argument(
        "--head",
        metavar="REV",
        help="the head revision, in a second temporary worktree (default: the working tree "
        "as it is, uncommitted changes included)",
    )
    parser.add_argument(
        "--head-results",
        type=Path,
        metavar="FILE",
        help="with --base: take the head side from this results document (corpus replay "
        "--results FILE of the selected cases) instead of replaying it again",
    )
    parser.add_argument(
        "--all", action="store_true", help="replay every case, not only the affected ones"
    )
    replay_engine_options(parser)
    parser.add_argument(
        "--repeat",
        type=gate_repeat,
        metavar="K|auto",
        help="replay each case K times on each side (default: corpus.yaml gate.repeat, else "
        "1). With --model live each case gets a verdict by a one-sided exact test of its "
        "passes out of K (regression, improved, unchanged, insufficient data with the K that "
        "would tell, unreliable baseline, not comparable); auto: rounds of 2 attempts, a case "
        "stopped once its verdict cannot change; with the recorded model K runs check "
        "determinism",
    )
    parser.add_argument(
        "--max-repeat",
        type=repeat_count,
        default=None,
        metavar="N",
        help="with --repeat auto: the most attempts per case and side (default 10)",
    )
    parser.add_argument("--junit", type=Path, metavar="FILE", help="also write JUnit XML here")
    parser.add_argument(
        "--markdown",
        type=Path,
        metavar="FILE",
        help="also write the pull-request comment here (and to $GITHUB_STEP_SUMMARY when set)",
    )
    html_option(parser)
    output_option(parser)


def _cmd_report(args: argparse.Namespace) -> int:
    from corpus_tool.commands.report import ReportOptions, report

    options = ReportOptions(args.results, args.html_out, args.base)
    return report(args.directory, Path.cwd(), options, date.today(), sys.stdout)


def gate_repeat(text: str) -> int | str:
    """--repeat K|auto: 1 to 1000 attempts per side, or auto."""
    return "auto" if text == "auto" else repeat_count(text)


def _args_report(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "results",
        type=Path,
        metavar="RESULTS.json",
        help="a results document (corpus replay|check --results FILE); with --base, the head's",
    )
    parser.add_argument(
        "--base",
        type=Path,
        metavar="BASE.json",
        help="the base run's results document: the report is the gate's, base against head",
    )
    parser.add_argument(
        "-o",
        "--output",
        dest="html_out",
        type=Path,
        required=True,
        metavar="FILE",
        help="the HTML file to write (self-contained: scripts, styles and data inline)",
    )


def _cmd_waivers(args: argparse.Namespace) -> int:
    from corpus_tool.commands.waivers import WaiversOptions, waivers
    from corpus_tool.waivers.drafting import Draft

    draft = None
    if args.action == "new":
        draft = Draft(
            args.case,
            tuple(args.check),
            args.reason,
            args.owner,
            args.expires,
            args.ticket,
            args.id,
        )
    results = getattr(args, "results", None)
    options = WaiversOptions(args.action, args.output, draft, results)
    return waivers(corpus_of(args), options, date.today(), Path.cwd(), sys.stdout)


def _args_waivers(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listed = actions.add_parser("list", help="every check waiver: active, expired, invalid")
    output_option(listed)
    new = actions.add_parser(
        "new",
        help="write waivers/<id>.yaml for a case's failing checks and print the path to commit",
        epilog=EPILOG,
    )
    new.add_argument("case", metavar="CASE", help="the case id")
    new.add_argument(
        "--check",
        action="extend",
        nargs="+",
        required=True,
        metavar="NAME",
        help="the checks to excuse (tools.args, replay.divergence, or all): several after one "
        "--check, or --check repeated",
    )
    new.add_argument("--reason", required=True, help="why the failure is acceptable for now")
    new.add_argument("--owner", help="who answers for it (default: git config user.name)")
    new.add_argument(
        "--expires",
        metavar="YYYY-MM-DD",
        help="its last day (default and latest: waivers.max_days from today; 90 days when unset)",
    )
    new.add_argument("--ticket", help="the issue tracking the fix")
    new.add_argument("--id", help="the waiver id (default: the next W-NNNN)")
    output_option(new)
    expired = actions.add_parser(
        "expired", help="waivers past their expiry (they waive nothing); exit 1 when any"
    )
    output_option(expired)
    idle = actions.add_parser(
        "unused",
        help="waivers whose checks all pass (replays their cases, or reads --results); "
        "exit 1 when any",
    )
    idle.add_argument(
        "--results", type=Path, metavar="FILE", help="read a results document instead of replaying"
    )
    output_option(idle)


def _cmd_status(args: argparse.Namespace) -> int:
    from corpus_tool.commands.status import show_status

    return show_status(corpus_of(args), args.results, args.output, date.today(), sys.stdout)


def _args_status(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--results",
        type=Path,
        metavar="FILE",
        help="a results document (corpus check --results FILE): also list unused waivers",
    )
    output_option(parser)


GATE_HELP = (
    "Per case: passed on base, failing on head is a regression (blocks unless a head waiver "
    "covers it); failing on both is still failing (reported, not blamed); failing on base, "
    "passing on head is newly passing; a new case that fails blocks unless waived or "
    "known_unknown; a case the change archives, retires or makes known_unknown is not "
    "counted and is marked silenced by this change; a case whose recording the change edited "
    "is not comparable. With --model live --repeat K: per case, base's and head's passes of K "
    "by a one-sided Fisher exact test. Exit 1 when blocked."
)


COMMANDS: dict[str, Command] = {
    "gate": (
        "the merge gate: base against head per case; a regression blocks unless waived",
        _args_gate,
        _cmd_gate,
    ),
    "report": (
        "a run or a gate as one self-contained HTML file: summary, filterable cases, "
        "per-case timelines",
        _args_report,
        _cmd_report,
    ),
    "waivers": (
        "waiver housekeeping: list, new, expired, unused",
        _args_waivers,
        _cmd_waivers,
    ),
    "status": (
        "cases by tier and status, drift from corpus.yaml's versions, waivers needing care",
        _args_status,
        _cmd_status,
    ),
}
"""This module's commands: (summary, options, handler) by name."""
