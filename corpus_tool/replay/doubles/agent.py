"""The agent as the team runs it: a plain `run(case_input)` or any command, against the doubles.

Both are wrapped into the entrypoint contract `(case_input, rt)`, so the engine replays them as
it replays a Runtime agent: while the agent runs, the doubles answer its provider requests for
`rt`'s case, and the socket guard lets it reach their loopback port (and nothing else). A
divergence that stopped a request ends the run as it ends through the Runtime, whatever the
agent did with the HTTP error.

`agent.command` runs with the case input as a JSON file (`{input}`, an absolute path) in the
repository root; its final output and status are the JSON object in the file named by
`CORPUS_OUTPUT` when it writes one, else its stdout's last JSON line.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from corpus_tool.replay.doubles.server import Doubles
from corpus_tool.replay.runtime import Runtime
from corpus_tool.replay.workers.network import allowing

INPUT = "{input}"
OUTPUT_ENV = "CORPUS_OUTPUT"


class CommandFailed(Exception):
    """agent.command ended without a final output (the run's status is then `failed`)."""


class InEnv:
    """The doubles serving on the loopback, their addresses and dummy keys in os.environ (set
    before the agent's import too: a client built at import time reads them then)."""

    def __init__(self) -> None:
        self.doubles = Doubles()  # listening; served once an agent needs it (`start`)
        self._saved: dict[str, str | None] | None = {k: os.environ.get(k) for k in self.env}
        os.environ.update(self.env)

    @property
    def env(self) -> dict[str, str]:
        return self.doubles.env()

    def retire(self) -> None:
        """Stop serving and put the environment back (once; a Runtime agent needs neither)."""
        if self._saved is None:
            return
        for key, value in self._saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        self._saved = None
        self.doubles.close()


@contextlib.contextmanager
def doubles_in_env() -> Iterator[InEnv]:
    """`InEnv` for the block."""
    served = InEnv()
    try:
        yield served
    finally:
        served.retire()


def takes_runtime(function: Callable[..., Any]) -> bool:
    """Whether `function` has a second positional parameter (the Runtime contract) rather
    than being a plain `run(case_input)`."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return True
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters):
        return True
    return sum(1 for p in parameters if p.kind in kinds) >= 2


def plain_agent(function: Callable[[dict[str, Any]], Any], doubles: Doubles) -> Callable[..., Any]:
    """`run(case_input)` as an entrypoint."""
    doubles.start()

    def agent(case_input: dict[str, Any], rt: Runtime) -> Any:
        reach = (f"{doubles.host}:{doubles.port}", f"localhost:{doubles.port}")
        with doubles.serving(rt) as case, allowing(*reach):
            try:
                returned = function(case_input)
            except Exception:
                case.reraise()  # the SDK's error for a divergence is the divergence
                raise
        case.reraise()
        return returned

    return agent


def command_agent(argv: Sequence[str], root: Path, doubles: Doubles) -> Callable[..., Any]:
    """`agent.command` as an entrypoint."""
    doubles.start()

    def agent(case_input: dict[str, Any], rt: Runtime) -> Any:
        with tempfile.TemporaryDirectory(prefix="corpus-case-") as scratch:
            given, output = Path(scratch) / "input.json", Path(scratch) / "output.json"
            given.write_text(json.dumps(case_input, ensure_ascii=False), encoding="utf-8")
            args = [a.replace(INPUT, str(given)) for a in argv]
            env = {**os.environ, **doubles.env(), OUTPUT_ENV: str(output)}
            with doubles.serving(rt) as case:
                done = _run(args, root, env)
            sys.stdout.write(done.stdout.decode("utf-8", "backslashreplace"))
            sys.stdout.flush()
            case.reraise()
            return _final(done, output)

    return agent


def _run(args: list[str], root: Path, env: Mapping[str, str]) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            args, cwd=root, env=dict(env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE
        )
    except OSError as err:
        raise CommandFailed(f"agent.command: cannot run {args[0]}: {err.strerror or err}") from None


def _final(done: subprocess.CompletedProcess[bytes], output: Path) -> Any:
    """The command's {status, output}: the CORPUS_OUTPUT file, else stdout's last JSON line."""
    with contextlib.suppress(OSError, ValueError):
        text = output.read_text(encoding="utf-8")
        if text.strip():
            return json.loads(text)
    for line in reversed(done.stdout.decode("utf-8", "replace").splitlines()):
        with contextlib.suppress(ValueError):
            value = json.loads(line)
            if isinstance(value, dict):
                return value
    raise CommandFailed(
        f"agent.command exited with status {done.returncode} and printed no "
        '{"status": ..., "output": ...} line (nor wrote one to $CORPUS_OUTPUT)'
    )
