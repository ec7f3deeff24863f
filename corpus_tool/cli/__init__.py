"""The command line: parse arguments, call commands/<verb>.py, turn errors into exit codes.

Each command's options and the call into its commands/<verb>.py live in `writing`, `checking`
or `gating`; what they share in `options`."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO, cast

from corpus_tool.cli import checking, gating, writing
from corpus_tool.cli.checking import AGENT_HELP
from corpus_tool.cli.gating import GATE_HELP
from corpus_tool.cli.options import EPILOG, Command, Parser
from corpus_tool.errors import CorpusError
from corpus_tool.io.escapes import Escaping, line
from corpus_tool.version import __version__

ORDER = (
    "init",
    "add",
    "record",
    "validate",
    "mv",
    "vary",
    "affected",
    "replay",
    "check",
    "regrade",
    "serve",
    "gate",
    "report",
    "waivers",
    "status",
    "migrate",
    "explain",
    "minimize",
    "diff",
    "keygen",
    "forget",
)
"""The commands in the order `corpus --help` lists them."""
COMMANDS: dict[str, Command] = {**writing.COMMANDS, **checking.COMMANDS, **gating.COMMANDS}


DETAILS = {"replay": AGENT_HELP, "check": AGENT_HELP, "gate": GATE_HELP}
"""More of a command's description, for what its messages send users to."""


def parser() -> argparse.ArgumentParser:
    """The argument parser of `corpus`, every command's options added."""
    top = _parser()
    for action in top._subparsers._group_actions if top._subparsers else ():
        if isinstance(action, _OptionsOnUse):
            action.configure_all()
    return top


def _parser() -> argparse.ArgumentParser:
    """The argument parser of `corpus`, each command's options added when the command line
    names the command (`_OptionsOnUse`)."""
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
    sub = top.add_subparsers(dest="command", metavar="COMMAND", required=True, action=_OptionsOnUse)
    assert isinstance(sub, _OptionsOnUse)
    for name in ORDER:
        summary, configure, handler = COMMANDS[name]
        described = f"{summary}. {DETAILS[name]}" if name in DETAILS else summary
        command = sub.add_parser(name, help=summary, description=described, epilog=EPILOG)
        sub.pending[name] = configure
        command.set_defaults(handler=handler)
    return top


class _OptionsOnUse(argparse._SubParsersAction):  # type: ignore[type-arg]
    """The commands, each one's options added to its parser when the command line names it:
    a run builds the options of one command, not of all of them (the start of the pre-commit
    hook's `corpus validate`). `corpus --help` shows only the commands' names and summaries;
    `corpus validate --help` names the command, so its parser is complete when it prints."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pending: dict[str, Callable[[argparse.ArgumentParser], None]] = {}

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        if values:
            self._configure(str(values[0]))
        super().__call__(parser, namespace, values, option_string)

    def configure_all(self) -> None:
        """Add the options of every command not yet named."""
        for name in list(self.pending):
            self._configure(name)

    def _configure(self, name: str) -> None:
        configure = self.pending.pop(name, None)
        if configure is not None:
            configure(self._name_parser_map[name])


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `corpus` console script."""
    with _escaped_output():
        return _run(argv)


@contextmanager
def _escaped_output() -> Iterator[None]:
    """stdout and stderr through `escapes.text`: data (ids, paths, agent output, messages
    quoting a file) never writes a terminal control sequence, whichever command prints it."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _escaping(saved[0]), _escaping(saved[1])
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def _escaping(stream: TextIO) -> TextIO:
    # None when Python started with that descriptor closed: left as is, as before
    return cast(TextIO, Escaping(stream)) if stream is not None else stream


def _run(argv: Sequence[str] | None) -> int:
    top = _parser()
    args, extras = top.parse_known_args(argv)
    if extras:  # named after the command they were given to, not after `corpus`
        prog = f"corpus {args.command}"
        given = " ".join(line(extra) for extra in extras)
        top.exit(2, f"{prog}: error: unrecognized arguments: {given} (see `{prog} --help`)\n")
    try:
        code: int = args.handler(args)
        sys.stdout.flush()  # inside the try: a closed pipe is reported here, not at exit
        return code
    except CorpusError as err:  # one line, whatever file name or input the message quotes
        print(f"corpus {args.command}: error: {line(err)}", file=sys.stderr)
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
            f"corpus {args.command}: internal error: {type(err).__name__}: {line(err)} "
            "(a bug in corpus-tool; rerun with CORPUS_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return 2
