"""The command line: parse arguments, call commands/<verb>.py, turn errors into exit codes."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import NoReturn

from corpus_tool.errors import CorpusError
from corpus_tool.version import __version__

Handler = Callable[[argparse.Namespace], int]
EPILOG = "exit status: 0 all good, 1 checks found problems, 2 usage or input error"


class Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors: the message and where to read more, exit 2."""

    def error(self, message: str) -> NoReturn:
        first = message.strip().splitlines()[0] if message.strip() else "bad command line"
        self.exit(2, f"{self.prog}: error: {first} (see `{self.prog} --help`)\n")


def _output_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        dest="output",
        choices=("text", "json"),
        default="text",
        help="text for people (default), json for machines",
    )


def _corpus(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from corpus_tool.corpus import open_corpus

    return open_corpus(args.directory, Path.cwd())


def _cmd_init(args: argparse.Namespace) -> int:
    from corpus_tool.commands.init import init

    base = args.directory if args.directory is not None else Path.cwd()
    target = base / args.path if args.path else base
    hook = _pre_commit_command() if args.install_hook else ()
    return init(target, sys.stdout, args.install_hook, hook)


def _pre_commit_command() -> tuple[str, ...]:
    """How to run pre-commit here: its script on PATH, else its module in this Python."""
    import importlib.util
    import shutil

    script = shutil.which("pre-commit")
    if script:
        return (script,)
    if importlib.util.find_spec("pre_commit") is not None:
        return (sys.executable, "-m", "pre_commit")
    return ()


def _args_init(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "path", nargs="?", type=Path, help="directory to initialise (default: -C or .)"
    )
    parser.add_argument(
        "--install-hook",
        action="store_true",
        help="also run `pre-commit install` at the git repository root, so every commit runs "
        "`corpus validate` (needs pre-commit: pip install pre-commit)",
    )


def _cmd_add(args: argparse.Namespace) -> int:
    from corpus_tool.commands.add import AddOptions
    from corpus_tool.commands.add_batch import add_many

    options = AddOptions(
        incident=args.incident[0],
        case_id=args.id,
        start=args.start,
        end=args.end,
        tier=args.tier,
        force=args.force,
        allow_incomplete=args.allow_incomplete,
        source_format=args.source_format,
        output=args.output,
        select=args.select,
        all_runs=args.all_runs,
        keep_going=args.keep_going,
        tools_log=args.tools_log,
        minimize=args.minimize,
    )
    return add_many(_corpus(args), args.incident, options, sys.stdout, os.environ, sys.stderr)


def _args_add(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "incident",
        type=Path,
        nargs="+",
        help="incident files, or directories (every file below them); all are checked "
        "before any case is written",
    )
    parser.add_argument(
        "--keep-going",
        action="store_true",
        help="with many incidents: add every good one and report the refused ones "
        "(default: one refused file means nothing is written)",
    )
    parser.add_argument(
        "--format",
        dest="source_format",
        default="auto",
        metavar="FORMAT",
        help="incident format: auto (default: recognise it) or an importer name",
    )
    parser.add_argument("--id", help="case id (default: derived from the trace id)")
    parser.add_argument(
        "--tools-log",
        type=Path,
        metavar="LOG",
        help="an MCP JSON-RPC log of the same run: its tools/call results answer the model's "
        "tool calls in INCIDENT (matched by tool name and arguments)",
    )
    runs = parser.add_mutually_exclusive_group()
    runs.add_argument(
        "--select",
        metavar="TASK_ID",
        help="the file holds many runs (benchmark results): add the one with this task id or label",
    )
    runs.add_argument(
        "--all",
        dest="all_runs",
        action="store_true",
        help="add every run of the file as its own case (ids: --id as prefix + each run's label)",
    )
    parser.add_argument("--start", type=int, metavar="SEQ", help="keep events from this seq on")
    parser.add_argument("--end", type=int, metavar="SEQ", help="keep events up to this seq")
    parser.add_argument(
        "--tier",
        choices=("fast", "full", "archive"),
        default="fast",
        help="when the case runs: fast (every commit, default), full (nightly), archive",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="re-add an existing case: rewrites trace.yaml, keeps a reviewed expected.yaml",
    )
    parser.add_argument(
        "--allow-incomplete",
        action="store_true",
        help="keep an incomplete incident as a known_unknown case",
    )
    parser.add_argument(
        "--minimize",
        action="store_true",
        help="before writing, shrink the trace to the events that reproduce the drafted "
        "trigger when the agent replays it (as `corpus minimize` does)",
    )
    parser.add_argument(
        "--json",
        dest="output",
        action="store_const",
        const="json",
        default="text",
        help="print what was added as JSON (--format names the incident format)",
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
    _cache_option(parser)
    _output_option(parser)


def _cache_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="check every case afresh (default: reuse the findings of unchanged cases, kept "
        "in the git dir or $CORPUS_CACHE_DIR)",
    )


def _cmd_mv(args: argparse.Namespace) -> int:
    from corpus_tool.commands.mv import mv

    return mv(_corpus(args), args.old, args.new, args.output, sys.stdout)


def _args_mv(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", metavar="OLD", help="the case id to rename")
    parser.add_argument("new", metavar="NEW", help="its new id (a-z 0-9 . _ -, not taken)")
    _output_option(parser)


def _cmd_keygen(args: argparse.Namespace) -> int:
    from corpus_tool.commands.keygen import keygen, show_id
    from corpus_tool.corpus import find_root

    if args.show_id:
        return show_id(_corpus(args), os.environ, sys.stdout, sys.stderr)
    start = (Path.cwd() / args.directory) if args.directory is not None else Path.cwd()
    output = Path.cwd() / args.key_output.expanduser() if args.key_output is not None else None
    return keygen(output, find_root(start), sys.stdout, sys.stderr)


def _args_keygen(parser: argparse.ArgumentParser) -> None:
    what = parser.add_mutually_exclusive_group()
    what.add_argument(
        "--show-id",
        action="store_true",
        help="make no key: print the id of the key set now (environment or key file) and say "
        "whether it is the corpus's (exit 1 if not)",
    )
    what.add_argument(
        "--output",
        dest="key_output",
        type=Path,
        metavar="FILE",
        help="write the key to FILE (outside the repository, mode 600) instead of printing it",
    )


def _cmd_forget(args: argparse.Namespace) -> int:
    from corpus_tool.commands.forget import ForgetOptions, forget

    value = sys.stdin.read().strip() if args.value == "-" else args.value
    options = ForgetOptions(value=value, dry_run=args.dry_run, output=args.output)
    return forget(_corpus(args), options, sys.stdout, os.environ, sys.stderr)


def _args_forget(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "value", help="the value as it was written (email, phone, ...); - reads it from stdin"
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="list the cases and waivers, remove nothing"
    )
    _output_option(parser)


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


def _replay_options(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from corpus_tool.replay.suite import RunOptions
    from corpus_tool.replay_run import ReplayOptions

    run = RunOptions(
        tuple(getattr(args, "cases", ())),
        args.mode,
        args.tier,
        args.repeat,
        args.workers,
        args.timeout,
    )
    return ReplayOptions(
        run, args.output, args.junit, args.results, diff=args.diff, verbose=args.verbose
    )


def _cmd_replay(args: argparse.Namespace) -> int:
    from corpus_tool.commands.replay import replay

    return replay(_corpus(args), _replay_options(args), sys.stdout, date.today())


def _cmd_check(args: argparse.Namespace) -> int:
    from corpus_tool.commands.check import check

    options = _replay_options(args)
    today, cwd = date.today(), Path.cwd()
    return check(_corpus(args), options, today, cwd, sys.stdout, cached=not args.no_cache)


def _args_check(parser: argparse.ArgumentParser) -> None:
    _args_run(parser)
    _cache_option(parser)


def _args_run(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--mode", choices=("strict", "lenient"), help="matching mode for every case (overrides)"
    )
    parser.add_argument("--tier", choices=("fast", "full", "archive"), help="only this tier")
    parser.add_argument("--junit", type=Path, metavar="FILE", help="also write JUnit XML here")
    parser.add_argument(
        "--results", type=Path, metavar="FILE", help="also write the results JSON (gate input)"
    )
    parser.add_argument(
        "--diff",
        action="store_true",
        help="for each failing case, show `corpus diff` of its recording and its replay",
    )
    parser.add_argument(
        "--repeat",
        type=_repeat_count,
        default=1,
        metavar="N",
        help="replay each case N times (determinism)",
    )
    parser.add_argument(
        "-n",
        "--workers",
        type=_worker_count,
        default=1,
        metavar="N",
        help="replay in N worker processes (default 1; auto: one per CPU core); "
        "the report is the same whatever N",
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        metavar="SECONDS",
        help="wall-clock limit of one replay of a case; past it the case is an error and its "
        "worker is replaced (default: corpus.yaml replay.timeout_s, else 60)",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also show each case's notes (request fields only one side carries) and the "
        "messages of checks not reached",
    )
    _output_option(parser)


def _repeat_count(text: str) -> int:
    """--repeat N: 1 to 1000 (0 would silently run once, a typo like 1000000 for hours)."""
    if not text.isdigit() or not 1 <= int(text) <= 1000:
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of runs from 1 to 1000")
    return int(text)


def _worker_count(text: str) -> int:
    """-n N: 1 to 256, or `auto` for the CPU cores this process may use."""
    if text == "auto":
        affinity = getattr(os, "sched_getaffinity", None)
        return max(1, len(affinity(0)) if affinity else os.cpu_count() or 1)
    if not text.isdigit() or not 1 <= int(text) <= 256:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give a number of workers from 1 to 256, or auto"
        )
    return int(text)


def _seconds(text: str) -> float:
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


def _args_replay(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("cases", nargs="*", metavar="CASE", help="case ids (default: all)")
    _args_run(parser)


def _cmd_explain(args: argparse.Namespace) -> int:
    from corpus_tool.commands.explain import explain

    return explain(args.topic, args.output, sys.stdout)


def _args_explain(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "topic",
        nargs="?",
        metavar="CHECK",
        help="a check name (tools.args) or an expect key (tools); default: list every check",
    )
    _output_option(parser)


def _cmd_minimize(args: argparse.Namespace) -> int:
    from corpus_tool.commands.minimize import MinimizeOptions, minimize
    from corpus_tool.minimize.case import Asked

    asked = Asked(args.until, args.mode, args.max_replays)
    options = MinimizeOptions(args.case, asked, args.dry_run, args.output)
    return minimize(_corpus(args), options, sys.stdout)


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
        type=_replay_budget,
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
        "--dry-run", action="store_true", help="report what would be removed, write nothing"
    )
    _output_option(parser)


def _replay_budget(text: str) -> int:
    """--max-replays N: 1 to 100000."""
    if not text.isdigit() or not 1 <= int(text) <= 100_000:
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of replays from 1 to 100000")
    return int(text)


def _cmd_diff(args: argparse.Namespace) -> int:
    from corpus_tool.commands.diff import DiffOptions, diff

    ignore = tuple(name for given in args.ignore for name in given.split(",") if name)
    options = DiffOptions(args.a, args.b, args.output, ignore, args.judge)
    return diff(options, sys.stdout, lambda: _corpus(args))


def _args_diff(parser: argparse.ArgumentParser) -> None:
    what = "a trace.yaml, a case directory, or a results document (replay --results FILE)"
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


def _cmd_gate(args: argparse.Namespace) -> int:
    from corpus_tool.commands.gate import GateOptions, gate
    from corpus_tool.errors import UsageError
    from corpus_tool.gate.revisions import Revisions
    from corpus_tool.replay.suite import RunOptions

    if args.documents and (args.base or args.head or args.all or args.head_results):
        raise UsageError("give two results files or --base REV, not both")
    if not args.documents and not args.base:
        raise UsageError("give --base REV (replay both revisions) or BASE.json HEAD.json")
    if args.documents and len(args.documents) != 2:
        raise UsageError(f"give two results files (BASE.json HEAD.json), not {len(args.documents)}")
    if args.head and args.head_results:
        raise UsageError("give --head REV or --head-results FILE, not both")
    revisions = Revisions(args.base, args.head, args.all, args.head_results) if args.base else None
    run = RunOptions((), args.mode, args.tier, 1, args.workers, args.timeout)
    options = GateOptions(
        tuple(args.documents), revisions, run, args.output, args.junit, args.markdown
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
    parser.add_argument(
        "--mode", choices=("strict", "lenient"), help="matching mode for every case (overrides)"
    )
    parser.add_argument("--tier", choices=("fast", "full", "archive"), help="only this tier")
    parser.add_argument(
        "-n",
        "--workers",
        type=_worker_count,
        default=1,
        metavar="N",
        help="replay in N worker processes (default 1; auto: one per CPU core)",
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        metavar="SECONDS",
        help="wall-clock limit of one replay of a case (default: replay.timeout_s, else 60)",
    )
    parser.add_argument("--junit", type=Path, metavar="FILE", help="also write JUnit XML here")
    parser.add_argument(
        "--markdown",
        type=Path,
        metavar="FILE",
        help="also write the pull-request comment here (and to $GITHUB_STEP_SUMMARY when set)",
    )
    _output_option(parser)


def _cmd_waivers(args: argparse.Namespace) -> int:
    from corpus_tool.commands.waivers import WaiversOptions, waivers
    from corpus_tool.gate.drafting import Draft

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
    return waivers(_corpus(args), options, date.today(), Path.cwd(), sys.stdout)


def _args_waivers(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listed = actions.add_parser("list", help="every check waiver: active, expired, invalid")
    _output_option(listed)
    new = actions.add_parser(
        "new",
        help="write waivers/<id>.yaml for a case's failing checks and print the path to commit",
        epilog=EPILOG,
    )
    new.add_argument("case", metavar="CASE", help="the case id")
    new.add_argument(
        "--check",
        action="append",
        required=True,
        metavar="NAME",
        help="a check to excuse (tools.args, replay.divergence, or all); repeatable",
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
    _output_option(new)
    expired = actions.add_parser(
        "expired", help="waivers past their expiry (they waive nothing); exit 1 when any"
    )
    _output_option(expired)
    idle = actions.add_parser(
        "unused",
        help="waivers whose checks all pass (replays their cases, or reads --results); "
        "exit 1 when any",
    )
    idle.add_argument(
        "--results", type=Path, metavar="FILE", help="read a results document instead of replaying"
    )
    _output_option(idle)


def _cmd_status(args: argparse.Namespace) -> int:
    from corpus_tool.commands.status import show_status

    return show_status(_corpus(args), args.results, args.output, date.today(), sys.stdout)


def _args_status(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--results",
        type=Path,
        metavar="FILE",
        help="a results document (corpus check --results FILE): also list unused waivers",
    )
    _output_option(parser)


def _cmd_migrate(args: argparse.Namespace) -> int:
    from corpus_tool import migrations
    from corpus_tool.commands.migrate import migrate
    from corpus_tool.corpus import Corpus, locate

    # corpus.yaml itself may be the file to upgrade: find the corpus without reading it
    corpus = Corpus(locate(args.directory, Path.cwd()))
    steps = migrations.REGISTERED
    return migrate(corpus, steps, args.dry_run, args.output, Path.cwd(), sys.stdout)


def _args_migrate(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dry-run", action="store_true", help="print the diff of each file, write nothing"
    )
    _output_option(parser)


COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Handler]] = {
    "init": ("create corpus.yaml, cases/, waivers/ and a pre-commit hook", _args_init, _cmd_init),
    "add": ("ingest an incident trace as a regression case", _args_add, _cmd_add),
    "validate": (
        "check schema, completeness, redaction (no unredacted personal data or secret; every "
        "case under the corpus key) and waivers of files, directories, the staged change "
        "(deletions included) or the whole corpus",
        _args_validate,
        _cmd_validate,
    ),
    "mv": (
        "rename a case: its directory, the id in both files, and waivers naming it",
        _args_mv,
        _cmd_mv,
    ),
    "affected": ("the cases a git diff can affect, and why", _args_affected, _cmd_affected),
    "replay": ("replay cases against the agent and grade them", _args_replay, _cmd_replay),
    "check": ("validate, replay and grade the whole corpus", _args_check, _cmd_check),
    "gate": (
        "the merge gate: base against head per case; a regression blocks unless waived",
        _args_gate,
        _cmd_gate,
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
    "migrate": (
        "upgrade corpus files to the current schema versions (comments and key order kept)",
        _args_migrate,
        _cmd_migrate,
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
    "keygen": (
        "make a redaction key: print it, or write a key file outside the repository",
        _args_keygen,
        _cmd_keygen,
    ),
    "forget": (
        "remove every case that holds the pseudonym of a value (right to erasure)",
        _args_forget,
        _cmd_forget,
    ),
}


AGENT_HELP = (
    "The agent: corpus.yaml agent.entrypoint names a module:callable, imported in worker "
    "processes with the root of the git repository that holds corpus.yaml first on sys.path "
    "and called as run(case_input, rt) for each case; it reaches the model and the tools only "
    "through the runtime (rt.model(messages, tools=...), rt.tool(name, arguments), rt.now(), "
    "rt.random, rt.emit(...)) and returns {status, output}. "
    "`from corpus_tool import Runtime, ToolError`."
)
GATE_HELP = (
    "Per case: passed on base, failing on head is a regression (blocks unless a head waiver "
    "covers it); failing on both is still failing (reported, not blamed); failing on base, "
    "passing on head is newly passing; a new case that fails blocks unless waived or "
    "known_unknown. Exit 1 when blocked."
)
DETAILS = {"replay": AGENT_HELP, "check": AGENT_HELP, "gate": GATE_HELP}
"""More of a command's description, for what its messages send users to."""


def parser() -> argparse.ArgumentParser:
    """The argument parser of `corpus`."""
    top = Parser(
        prog="corpus",
        epilog=EPILOG,
        description="Turn LLM-agent incident traces into a regression corpus kept in git.",
    )
    top.add_argument(
        "-C",
        dest="directory",
        type=Path,
        metavar="DIR",
        help="the corpus directory, the one holding corpus.yaml (default: found by walking up "
        "from the current directory, else the one corpus.yaml the git repository tracks); "
        "unlike git -C, paths given to a command still resolve from the current directory "
        "(init creates its PATH under DIR)",
    )
    top.add_argument("--version", action="version", version=f"corpus-tool {__version__}")
    sub = top.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (summary, configure, handler) in COMMANDS.items():
        described = f"{summary}. {DETAILS[name]}" if name in DETAILS else summary
        command = sub.add_parser(name, help=summary, description=described, epilog=EPILOG)
        configure(command)
        command.set_defaults(handler=handler)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `corpus` console script."""
    top = parser()
    args, extras = top.parse_known_args(argv)
    if extras:  # named after the command they were given to, not after `corpus`
        prog = f"corpus {args.command}"
        top.exit(
            2, f"{prog}: error: unrecognized arguments: {' '.join(extras)} (see `{prog} --help`)\n"
        )
    try:
        code: int = args.handler(args)
        sys.stdout.flush()  # inside the try: a closed pipe is reported here, not at exit
        return code
    except CorpusError as err:
        print(f"corpus {args.command}: error: {err}", file=sys.stderr)
        return err.exit_code
    except BrokenPipeError:
        # `corpus check | head`: the reader left; say nothing more, as other Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except KeyboardInterrupt:
        print(f"corpus {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as err:  # a bug: say so in one line, show the traceback only on request
        if os.environ.get("CORPUS_DEBUG"):
            raise
        print(
            f"corpus {args.command}: internal error: {type(err).__name__}: {err} "
            "(a bug in corpus-tool; rerun with CORPUS_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
