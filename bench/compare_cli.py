"""Is the CLI's output on the example corpus the same as at another revision?

    python bench/compare_cli.py BASE_REV

Checks out BASE_REV into a temporary git worktree, runs the same commands with both trees'
code (this interpreter, each tree first on PYTHONPATH) on each tree's example corpus, and
compares stdout, stderr, exit status, the results JSON and the JUnit file after blanking
wall-clock durations. Exit 0 when every output is byte-identical, 1 with a unified diff when
not. What a refactor promises ("no user sees a difference") is checked by running it.
"""

from __future__ import annotations

import difflib
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {
    "check": ["check"],
    "check-lenient": ["check", "--mode", "lenient"],
    "check-json": ["check", "--format", "json"],
    "replay-one": ["replay", "refund-wrong-unit"],
    "validate": ["validate"],
    "validate-json": ["validate", "--format", "json"],
    "files": ["replay", "--results", "{out}/results.json", "--junit", "{out}/junit.xml"],
}
_TIMES = [
    (re.compile(r'"duration_ms": [0-9.]+'), '"duration_ms": X'),
    (re.compile(r'time="[0-9.]+"'), 'time="X"'),
    (re.compile(r"\] [0-9]+ ms"), "] X ms"),
]


def outputs(tree: Path, scratch: Path) -> dict[str, str]:
    """Every output of every command, run with `tree`'s code on `tree`'s example corpus."""
    env = {**os.environ, "PYTHONPATH": str(tree), "CORPUS_CACHE_DIR": str(scratch / "cache")}
    found: dict[str, str] = {}
    for name, args in COMMANDS.items():
        out = scratch / name
        out.mkdir(parents=True)
        argv = [a.format(out=out) for a in args]
        done = subprocess.run(
            [sys.executable, "-m", "corpus_tool", "-C", "examples/corpus", *argv],
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        found[f"{name}: exit"] = str(done.returncode)
        found[f"{name}: stdout"] = done.stdout
        found[f"{name}: stderr"] = done.stderr
        for written in sorted(out.iterdir()):
            found[f"{name}: {written.name}"] = written.read_text(encoding="utf-8")
    return {k: _blank_times(v) for k, v in found.items()}


def _blank_times(text: str) -> str:
    for pattern, blank in _TIMES:
        text = pattern.sub(blank, text)
    return text


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(
            ["git", "worktree", "add", "--detach", "-q", str(base), argv[0]], cwd=ROOT, check=True
        )
        try:
            before = outputs(base, Path(tmp) / "before")
            after = outputs(ROOT, Path(tmp) / "after")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT)
    changed = [k for k in before if before[k] != after.get(k)]
    for key in changed:
        diff = difflib.unified_diff(
            before[key].splitlines(), after.get(key, "").splitlines(), key, key, lineterm=""
        )
        print("\n".join(diff))
    print(f"{len(before)} outputs compared, {len(changed)} differ from {argv[0]}")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
