"""Run documented command lines in a scratch area, as a user pastes them into a shell.

Each line (or each block, its lines in one shell, so `export` and `args=$(...)` carry over) runs
with `bash -u` in a fresh copy of a scratch area built by tests/docs/scratch.py. `corpus` on the
PATH is a shim that runs this checkout's `python -m corpus_tool` and records, per invocation, the
line it came from, its exit status and its stderr: a line passes when every `corpus` it ran
exited 0 or 1 without a traceback, and it ran at least one.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import GIT_ENV, TEST_KEY
from tests.docs.doc_lines import DocLine
from tests.docs.scratch import fresh_copy

SHIM = """#!/bin/sh
# records each run of `corpus` for the test: the doc line it came from, status, stderr
record=$(mktemp "$CORPUS_DOC_LOG/run.XXXXXX")
"$CORPUS_DOC_PYTHON" -m corpus_tool "$@" 2>"$record.err"
code=$?
cat "$record.err" >&2
printf '%s\\n%s\\n%s\\n' "$(cat "$CORPUS_DOC_LOG/line")" "$code" "corpus $*" >"$record"
exit $code
"""
# What GitHub Actions would put in the `${{ }}` expressions of the documented workflows.
EXPRESSIONS = {
    "github.base_ref": "main",
    "steps.affected.outputs.cases": "refund-success",
    "matrix.cases": "refund-success",
}
CASE = "refund-success"
"""A case of the scratch corpus, for the expressions that name one."""


@dataclass(frozen=True)
class Run:
    """One `corpus` invocation a documented line made."""

    line: int
    code: int
    argv: str
    err: str


@dataclass(frozen=True)
class Outcome:
    """What running one documented line did."""

    line: DocLine
    runs: tuple[Run, ...]
    shell_errors: tuple[str, ...]  # what the shell refused in this line (unset variable, ...)

    def problems(self) -> list[str]:
        """Why this line is not true as written; empty when it is."""
        where = f"{self.line.where}: `{self.line.text}`"
        found = [f"{where}: the shell said {text!r}" for text in self.shell_errors]
        if not self.runs:
            return [*found, f"{where} ran no `corpus`"]
        return found + [
            f"{where}: `{run.argv}` exited {run.code}: {run.err.strip()}"
            for run in self.runs
            if run.code not in (0, 1) or "Traceback" in run.err or "internal error" in run.err
        ]


def _area_env(area: Path) -> dict[str, str]:
    """The environment of a user's shell in the scratch area, with the docs' variables set."""
    path = os.pathsep.join([str(area / "bin"), str(Path(sys.executable).parent), "/usr/bin:/bin"])
    return {
        **GIT_ENV,
        "HOME": str(area / "home"),
        "PATH": path,
        "LANG": "C.UTF-8",
        "CORPUS_REDACTION_KEY": TEST_KEY,
        "CORPUS_DOC_LOG": str(area / "log"),
        "CORPUS_DOC_PYTHON": sys.executable,
        # the variables the docs' CI recipes set: their base, outputs and shard
        "BASE": "origin/main",
        "base": "origin/main",
        "SHARD": "1",
        "OUT": str(area / "out"),
        "GITHUB_OUTPUT": str(area / "github-output"),
        "GITHUB_STEP_SUMMARY": str(area / "step-summary.md"),
    }


def prepare(template: Path, into: Path) -> Path:
    """A fresh copy of `template` (holding `repo/`) with the shim, a home and outputs."""
    area = fresh_copy(template, into)
    for name in ("bin", "log", "out", "home/Downloads"):
        (area / name).mkdir(parents=True, exist_ok=True)
    shim = area / "bin/corpus"
    shim.write_text(SHIM, encoding="utf-8")
    shim.chmod(0o755)
    return area


def _expand(text: str, area: Path) -> str:
    """Fill the `${{ }}` expressions GitHub Actions would fill; an unknown one stays (the
    shell then refuses it, and the test says so)."""
    values = {**EXPRESSIONS, "runner.temp": str(area)}
    return re.sub(r"\$\{\{\s*([\w.]+)\s*\}\}", lambda m: values.get(m[1], m[0]), text)


def run_lines(lines: Sequence[DocLine], area: Path) -> list[Outcome]:
    """Run `lines` in order in one shell in `area/repo`; what each line's `corpus` runs did."""
    script = ["set -u"]
    for index, line in enumerate(lines):
        script += [f'echo {index} > "$CORPUS_DOC_LOG/line"', _expand(line.text, area)]
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", "\n".join(script) + "\n"],
        cwd=area / "repo",
        env=_area_env(area),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    runs = _runs(area / "log")
    refused = _shell_errors(done.stderr)
    return [
        Outcome(
            line,
            tuple(r for r in runs if r.line == index),
            tuple(text for at, text in refused if at == index),
        )
        for index, line in enumerate(lines)
    ]


def _shell_errors(stderr: str) -> list[tuple[int, str]]:
    """(index of the documented line, message) of each error bash reported itself; script
    line 1 is `set -u`, then two script lines per documented line."""
    found = []
    for text in stderr.splitlines():
        at = re.match(r"bash: line (\d+): ", text)
        if at:
            found.append(((int(at[1]) - 2) // 2, text))
    return found


def _runs(log: Path) -> list[Run]:
    found = []
    for record in sorted(log.glob("run.*")):
        if record.suffix == ".err":
            continue
        line, code, argv = record.read_text(encoding="utf-8").split("\n", 2)
        err = Path(f"{record}.err").read_text(encoding="utf-8", errors="replace")
        found.append(Run(int(line), int(code), argv.strip(), err))
    return found
