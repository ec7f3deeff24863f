"""The commands that write the corpus: init, add, record, mv, vary, keygen, forget, migrate."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from corpus_tool.cli.options import (
    Command,
    corpus_of,
    output_option,
    seconds,
)


def _cmd_init(args: argparse.Namespace) -> int:
    from corpus_tool.commands.init import init

    base = args.directory if args.directory is not None else Path.cwd()
    target = base / args.path if args.path else base
    hook = _pre_commit_command() if args.install_hook else ()
    return init(target, sys.stdout, args.install_hook, hook, args.editor)


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
    parser.add_argument(
        "--editor",
        action="store_true",
        help="also associate the corpus files with their schemas for yaml-language-server "
        "(VS Code's YAML extension): yaml.schemas in .vscode/settings.json at the repository "
        "root, pointing at the schema files installed with corpus-tool",
    )


def _cmd_add(args: argparse.Namespace) -> int:
    from corpus_tool.author.stages import AddOptions
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
        timeout_s=args.timeout,
    )
    return add_many(corpus_of(args), args.incident, options, sys.stdout, os.environ, sys.stderr)


def _args_add(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "incident",
        type=Path,
        nargs="+",
        help="incident files, or directories (every file below them; an OpenHands "
        "conversation directory, base_state.json beside events/, is one incident); all are "
        "checked before any case is written",
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
        "--timeout",
        type=seconds,
        metavar="SECONDS",
        help="with --minimize: wall-clock limit of one replay of a candidate (default: "
        "corpus.yaml replay.timeout_s, else 60)",
    )
    parser.add_argument(
        "--json",
        dest="output",
        action="store_const",
        const="json",
        default="text",
        help="print what was added as JSON (--format names the incident format)",
    )


def _cmd_mv(args: argparse.Namespace) -> int:
    from corpus_tool.commands.mv import mv

    return mv(corpus_of(args), args.old, args.new, args.output, sys.stdout)


def _args_mv(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", metavar="OLD", help="the case id to rename")
    parser.add_argument("new", metavar="NEW", help="its new id (a-z 0-9 . _ -, not taken)")
    output_option(parser)


def _cmd_vary(args: argparse.Namespace) -> int:
    from corpus_tool.commands.vary import vary

    write = args.write and not args.dry_run
    return vary(corpus_of(args), args.case, args.fault, write, args.force, args.output, sys.stdout)


def _args_vary(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("case", help="the case to derive variants of")
    parser.add_argument(
        "--fault",
        action="append",
        metavar="KIND[:TOOL]",
        help="a fault the first attempt of a tool call gets, a retry getting the recorded "
        "answer: timeout[:TOOL[:TYPE]], error:TYPE[:TOOL], http:STATUS[:TOOL], "
        "drift:FIELD[:TOOL[:removed|renamed|retyped]], empty[:TOOL], duplicate[:TOOL] "
        "(timed out after it executed: a retry with a new idempotency key executes again); "
        "without TOOL, each call with a side effect; repeat for more variants (default: timeout)",
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help="write the variants, each case <id>~<kind>-<tool> (default: only report them)",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="only report what would be written (the default; overrides --write)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="rewrite an existing variant's trace.yaml (a reviewed expected.yaml stays)",
    )
    output_option(parser)


def _cmd_keygen(args: argparse.Namespace) -> int:
    from corpus_tool.commands.keygen import keygen, show_id
    from corpus_tool.store.corpus import find_root

    if args.show_id:
        return show_id(corpus_of(args), os.environ, sys.stdout, sys.stderr)
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
    return forget(corpus_of(args), options, sys.stdout, os.environ, sys.stderr)


def _args_forget(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "value", help="the value as it was written (email, phone, ...); - reads it from stdin"
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="list the cases and waivers, remove nothing"
    )
    output_option(parser)


def _cmd_migrate(args: argparse.Namespace) -> int:
    from corpus_tool.commands.migrate import migrate
    from corpus_tool.io import migrations
    from corpus_tool.store.corpus import Corpus, locate

    # corpus.yaml itself may be the file to upgrade: find the corpus without reading it
    corpus = Corpus(locate(args.directory, Path.cwd()))
    steps = migrations.REGISTERED
    return migrate(corpus, steps, args.dry_run, args.output, Path.cwd(), sys.stdout)


def _args_migrate(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dry-run", action="store_true", help="print the diff of each file, write nothing"
    )
    output_option(parser)


def _cmd_record(args: argparse.Namespace) -> int:
    from corpus_tool.commands.record import RecordOptions, record

    command = args.agent_command[1:] if args.agent_command[:1] == ["--"] else args.agent_command
    options = RecordOptions(
        command=tuple(command),
        out=args.out,
        trace_id=args.trace_id,
        agent_name=args.agent_name,
        agent_version=args.agent_version,
        upstreams={"openai": args.openai_upstream, "anthropic": args.anthropic_upstream},
    )
    return record(options, os.environ, Path.cwd(), sys.stdout, sys.stderr)


def _args_record(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "agent_command",
        nargs=argparse.REMAINDER,
        metavar="-- COMMAND...",
        help="the agent as the team runs it (any language), after `--`; it runs in the current "
        "directory with OPENAI_BASE_URL and ANTHROPIC_BASE_URL pointed at the recording proxy, "
        'its stdout passed on; a last stdout line {"status": ..., "output": ...} is the '
        "run's ending, else its exit status (0: succeeded) and the model's last answer",
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="FILE",
        help="the incident to write (default: incidents/TRACE_ID.json); never overwritten",
    )
    parser.add_argument("--trace-id", help="the incident's traceId (default: rec-<random>)")
    parser.add_argument(
        "--agent-name", help="agent.name in the incident (default: the directory's name)"
    )
    parser.add_argument(
        "--agent-version",
        help="agent.version in the incident (default: the git commit, git rev-parse --short)",
    )
    parser.add_argument(
        "--openai-upstream",
        metavar="URL",
        help="where OpenAI requests go (default: your OPENAI_BASE_URL, else "
        "https://api.openai.com/v1)",
    )
    parser.add_argument(
        "--anthropic-upstream",
        metavar="URL",
        help="where Anthropic requests go (default: your ANTHROPIC_BASE_URL, else "
        "https://api.anthropic.com)",
    )


COMMANDS: dict[str, Command] = {
    "init": (
        "create corpus.yaml, cases/, waivers/ and a pre-commit hook",
        _args_init,
        _cmd_init,
    ),
    "add": ("ingest an incident trace as a regression case", _args_add, _cmd_add),
    "record": (
        "run an unchanged agent against the real provider through a recording proxy and write "
        "a native incident",
        _args_record,
        _cmd_record,
    ),
    "mv": (
        "rename a case: its directory, the id in both files, and waivers naming it",
        _args_mv,
        _cmd_mv,
    ),
    "vary": (
        "derive fault-injection variants of a case (timeouts, errors, duplicates, ...)",
        _args_vary,
        _cmd_vary,
    ),
    "migrate": (
        "upgrade corpus files to the current schema versions (comments and key order kept)",
        _args_migrate,
        _cmd_migrate,
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
"""This module's commands: (summary, options, handler) by name."""
