"""Is the CLI's output on the example corpus the same as at another revision?

    python bench/compare_cli.py BASE_REV [--cache mixed|cold|warm] [--base-cache MODE]

Checks out BASE_REV into a temporary git worktree and, for each tree, copies its example corpus,
incidents and agent into a scratch git repository (pinned author and dates, so commits hash the
same) and runs every command there with that tree's code (this interpreter, the tree first on
PYTHONPATH, a fixed redaction key): `--help` of the top level and of every command and
subcommand, each command in text and JSON, the writing commands (init, add, mv, forget, migrate,
keygen, waivers new, vary, minimize, gate) on the scratch copy, and error paths. It compares stdout,
stderr, exit status, every file a command was asked to write and, at the end, every file of the
scratch repository, after blanking what differs between two runs of the same code (wall-clock
durations, the scratch directory, a fresh key; the scratch commits' hashes, which differ only if
the two trees' examples do). Exit 0 when every output is byte-identical, 1 with a unified diff of
each one that is not; the last line says how many were compared. What a refactor promises ("no
user sees a difference") is checked by running it: about a minute and a half on 2 cores.

`--cache` says what the caches (findings, parsed documents, affected's facts) hold when each
step runs, on both sides unless `--base-cache` says otherwise for the base: `mixed` (the
default) one cache for the whole sequence, as a user's runs share one, so a step finds what the
steps before it left; `cold` an empty cache for every step, so nothing is ever read from one;
`warm` the whole sequence run once to fill the cache, then (the scratch repository made again,
byte for byte) run again and compared, so every step finds the entries of the very files it
reads. `BASE_REV --base-cache cold --cache warm` with BASE_REV the checkout's own HEAD compares
a warm run with a cold one of the same code: the caches never change an output.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KEY = "compare-key-0123456789abcdef0123456789abcdef"
EMAIL = "jane.doe@example.com"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Compare Author",
    "GIT_AUTHOR_EMAIL": "author@example.invalid",
    "GIT_COMMITTER_NAME": "Compare Author",
    "GIT_COMMITTER_EMAIL": "author@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}
COPIED = ("corpus", "incidents", "refund_agent")  # what of each tree's examples/ the scratch holds
COMMANDS = [
    *("init", "add", "validate", "mv", "affected", "replay", "check", "regrade", "gate"),
    "waivers",
    *("status", "migrate", "explain", "minimize", "diff", "keygen", "forget", "report", "serve"),
    "vary",
    "record",
]
WAIVERS = ("list", "new", "expired", "unused")
GIT = "git"  # a step that runs git in the scratch repository, its output not compared

# In order, each a command line run in the scratch repository, which holds the example corpus at
# examples/corpus and gets a corpus of its own at fresh/ (`init`, filled by `add` under KEY).
# "{o}" is a directory of the step's own outside the repository, whose files are outputs too;
# "{x}" one whose files are not compared (an HTML report embeds the run's timings compressed);
# "{results}" and "{lenient}" the results JSON the steps "files" and "check-files" wrote. Read-only
# commands first, then the ones that write.
STEPS: list[tuple[str, str]] = [
    ("help", "--help"),
    ("version", "--version"),
    *((f"{c}-help", f"{c} --help") for c in COMMANDS),
    *((f"waivers-{a}-help", f"waivers {a} --help") for a in WAIVERS),
    ("no-command", ""),
    ("unknown-command", "nosuch"),
    ("unknown-option", "-C examples/corpus check --nosuch"),
    ("record-no-command", "record --agent-version 1"),
    ("record-no-model-call", "record --agent-version 1 --out {o}/none.json -- true"),
    ("check", "-C examples/corpus check"),
    ("check-lenient", "-C examples/corpus check --mode lenient"),
    ("check-json", "-C examples/corpus check --format json"),
    ("check-files", "-C examples/corpus check --mode lenient --results {o}/lenient.json"),
    ("replay-one", "-C examples/corpus replay refund-wrong-unit"),
    ("replay-one-json", "-C examples/corpus replay refund-wrong-unit --format json"),
    ("replay-diff-verbose", "-C examples/corpus replay refund-wrong-unit --diff -v"),
    ("replay-repeat", "-C examples/corpus replay refund-success --repeat 2 --mode lenient"),
    ("replay-tier", "-C examples/corpus replay --tier full"),
    ("replay-unknown-case", "-C examples/corpus replay no-such-case"),
    ("serve-remote-host", "-C examples/corpus serve refund-success --host 0.0.0.0"),
    ("files", "-C examples/corpus replay --results {o}/results.json --junit {o}/junit.xml"),
    ("validate", "-C examples/corpus validate"),
    ("validate-json", "-C examples/corpus validate --format json"),
    (
        "validate-paths",
        "-C examples/corpus validate examples/corpus/cases/refund-success examples/corpus/waivers",
    ),
    ("validate-no-cache", "-C examples/corpus validate --no-cache"),
    ("validate-missing-file", "-C examples/corpus validate no/such/file.yaml"),
    ("validate-staged", "-C examples/corpus validate --staged"),
    ("status", "-C examples/corpus status"),
    ("status-json", "-C examples/corpus status --format json"),
    ("status-results", "-C examples/corpus status --results {results}"),
    ("status-results-json", "-C examples/corpus status --results {results} --format json"),
    ("regrade", "-C examples/corpus regrade {results}"),
    ("regrade-json", "-C examples/corpus regrade {lenient} --format json"),
    ("explain", "explain"),
    ("explain-json", "explain --format json"),
    ("explain-check", "explain tools.args"),
    ("explain-key-json", "explain tools --format json"),
    ("explain-unknown", "explain no.such.check"),
    ("waivers-list", "-C examples/corpus waivers list"),
    ("waivers-list-json", "-C examples/corpus waivers list --format json"),
    ("waivers-expired", "-C examples/corpus waivers expired"),
    ("waivers-expired-json", "-C examples/corpus waivers expired --format json"),
    ("waivers-unused", "-C examples/corpus waivers unused"),
    ("waivers-unused-results", "-C examples/corpus waivers unused --results {results}"),
    ("waivers-unused-json", "-C examples/corpus waivers unused --results {results} --format json"),
    ("diff-cases", "-C examples/corpus diff refund-success refund-wrong-unit"),
    ("diff-cases-json", "-C examples/corpus diff refund-success refund-wrong-unit --format json"),
    ("diff-markdown", "-C examples/corpus diff refund-success refund-wrong-unit --format markdown"),
    ("diff-ignore", "-C examples/corpus diff refund-success refund-wrong-unit --ignore amount"),
    (
        "diff-paths",
        "-C examples/corpus diff examples/corpus/cases/refund-success/trace.yaml "
        "examples/corpus/cases/refund-success",
    ),
    ("diff-results", "-C examples/corpus diff {results} {lenient}"),
    ("diff-results-json", "-C examples/corpus diff {results} {lenient} --format json"),
    ("diff-missing-file", "-C examples/corpus diff no/such/trace.yaml refund-success"),
    ("diff-unknown-case", "-C examples/corpus diff no-such-case refund-success"),
    ("report", "-C examples/corpus report {results} -o {x}/report.html"),
    ("report-gate", "-C examples/corpus report {lenient} --base {results} -o {x}/report.html"),
    ("report-missing-file", "-C examples/corpus report no/such/results.json -o {x}/report.html"),
    ("affected", "-C examples/corpus affected --base HEAD~1"),
    ("affected-explain", "-C examples/corpus affected --base HEAD~1 --explain"),
    ("affected-json", "-C examples/corpus affected --base HEAD~1 --format json"),
    ("affected-text", "-C examples/corpus affected --base HEAD~1 --format text"),
    ("affected-pytest", "-C examples/corpus affected --base HEAD~1 --format pytest"),
    (
        "affected-matrix",
        "-C examples/corpus affected --base HEAD~2 --format github-matrix --shard 2",
    ),
    ("affected-shard", "-C examples/corpus affected --base HEAD~2 --shard 1/2 --tier fast"),
    ("affected-bad-rev", "-C examples/corpus affected --base no-such-rev"),
    ("gate", "-C examples/corpus gate --base HEAD~1 --junit {o}/junit.xml --markdown {o}/pr.md"),
    ("gate-json", "-C examples/corpus gate --base HEAD~1 --format json"),
    ("gate-files", "-C examples/corpus gate {results} {lenient}"),
    ("gate-files-json", "-C examples/corpus gate {results} {lenient} --format json"),
    ("gate-files-markdown", "-C examples/corpus gate {results} {lenient} --markdown {o}/pr.md"),
    ("gate-missing-file", "-C examples/corpus gate no/such/base.json {results}"),
    ("keygen-show-id", "-C examples/corpus keygen --show-id"),
    ("keygen", "keygen"),
    ("keygen-output", "keygen --output {o}/new.key"),
    ("keygen-inside-repo", "-C examples/corpus keygen --output examples/corpus/in-repo.key"),
    ("init", "init fresh"),
    ("init-again", "init fresh"),
    ("keygen-show-id-empty", "-C fresh keygen --show-id"),
    ("add", "-C fresh add examples/incidents/refund-success.json"),
    (
        "add-json",
        "-C fresh add examples/incidents/refund-wrong-unit.json --id wrong --tier full --json",
    ),
    ("add-slice", "-C fresh add examples/incidents/inventory-zero-stock.json --id sliced --end 3"),
    ("add-twice", "-C fresh add examples/incidents/refund-success.json"),
    ("add-force", "-C fresh add examples/incidents/refund-success.json --force"),
    ("add-email", "-C fresh add email.json --id emailed"),
    ("add-directory", "-C fresh add examples/incidents --keep-going --json"),
    ("add-missing-file", "-C fresh add no/such/incident.json"),
    ("add-bad-id", "-C fresh add email.json --id 'Bad Id'"),
    (GIT, "add -A"),
    ("validate-staged-fresh", "validate --staged"),
    ("affected-staged", "-C fresh affected --base HEAD --staged --format text"),
    (GIT, "commit -q -m 'the fresh corpus'"),
    ("keygen-show-id-fresh", "-C fresh keygen --show-id"),
    ("validate-fresh-json", "-C fresh validate --format json"),
    ("status-fresh", "-C fresh status"),
    ("forget-dry-run", "-C fresh forget jane.doe@example.com --dry-run"),
    ("forget-dry-run-json", "-C fresh forget jane.doe@example.com --dry-run --format json"),
    ("forget", "-C fresh forget jane.doe@example.com"),
    ("forget-again-json", "-C fresh forget jane.doe@example.com --format json"),
    ("forget-other-key", "-C examples/corpus forget jane.doe@example.com --dry-run"),
    (GIT, "commit -q -a -m 'forget a value'"),
    ("mv", "-C examples/corpus mv refund-wrong-unit refund-units"),
    ("affected-worktree", "-C examples/corpus affected --base HEAD --worktree --explain"),
    ("gate-worktree", "-C examples/corpus gate --base HEAD"),
    ("mv-back-json", "-C examples/corpus mv refund-units refund-wrong-unit --format json"),
    ("mv-unknown-case", "-C examples/corpus mv no-such-case another"),
    ("mv-taken", "-C examples/corpus mv refund-success refund-wrong-unit"),
    ("migrate-dry-run", "-C examples/corpus migrate --dry-run"),
    ("migrate", "-C examples/corpus migrate"),
    ("migrate-json", "-C examples/corpus migrate --format json"),
    (
        "waivers-new",
        "-C examples/corpus waivers new refund-wrong-unit --check tools.args "
        "--reason 'units fixed next sprint' --owner jane --expires 2099-12-31 --ticket T-7",
    ),
    (
        "waivers-new-json",
        "-C examples/corpus waivers new inventory-zero-stock --check all "
        "--reason kept --owner jane --expires 2099-12-31 --id W-0100 --format json",
    ),
    (
        "waivers-new-unknown-case",
        "-C examples/corpus waivers new no-such-case --check all "
        "--reason r --owner o --expires 2099-12-31",
    ),
    ("waivers-list-after", "-C examples/corpus waivers list"),
    ("vary-dry-run", "-C examples/corpus vary refund-success --fault timeout:create_refund"),
    ("vary-json", "-C examples/corpus vary refund-success --fault duplicate --format json"),
    ("vary-no-side-effect", "-C examples/corpus vary inventory-zero-stock"),
    ("vary", "-C examples/corpus vary refund-success --fault timeout:create_refund --write"),
    ("vary-exists", "-C examples/corpus vary refund-success --fault timeout:create_refund --write"),
    ("minimize-dry-run", "-C examples/corpus minimize create-refund-lost-retry --dry-run"),
    (
        "minimize-lenient-json",
        "-C examples/corpus minimize check-refund-timeout-retry --dry-run "
        "--mode lenient --format json",
    ),
    (
        "minimize-until",
        "-C examples/corpus minimize create-refund-lost-retry --until ConnectionResetError "
        "--max-replays 3 --dry-run",
    ),
    ("minimize-no-trigger", "-C examples/corpus minimize refund-wrong-unit --dry-run"),
    ("minimize", "-C examples/corpus minimize create-refund-lost-retry"),
    ("minimize-unknown-case", "-C examples/corpus minimize no-such-case"),
    ("validate-after", "-C examples/corpus validate"),
]
_TIMES = [
    (re.compile(r'"duration_ms": [0-9.]+'), '"duration_ms": X'),
    (re.compile(r'time="[0-9.]+"'), 'time="X"'),
    (re.compile(r"\] [0-9]+ ms"), "] X ms"),
]
# A fresh key is random by design: blank it and its id, in the steps that make one only.
_FRESH_KEY = [(re.compile(r"k-[0-9a-f]{12}"), "k-X"), (re.compile(r"^\S{40,}$", re.M), "KEY")]
_FRESH = {"keygen", "keygen-output"}


MODES = ("mixed", "cold", "warm")


def outputs(tree: Path, scratch: Path, cache: str = "mixed") -> dict[str, str]:
    """Every output of every step, run with `tree`'s code on a copy of `tree`'s examples, the
    caches as `cache` says (MODES)."""
    if cache == "warm":  # a first pass fills the cache; the same steps on the same files again
        _pass(tree, scratch, "mixed")
        for made in ("repo", "out", "unread"):
            shutil.rmtree(scratch / made)
    return _pass(tree, scratch, cache)


def _pass(tree: Path, scratch: Path, cache: str) -> dict[str, str]:
    work = scratch / "repo"
    _scratch_repo(tree, work)
    env = {
        **os.environ,
        **GIT_ENV,
        "PYTHONPATH": str(tree),
        "CORPUS_CACHE_DIR": str(scratch / "cache"),
        "CORPUS_REDACTION_KEY": KEY,
    }
    env.pop("GITHUB_STEP_SUMMARY", None)
    found: dict[str, str] = {}
    for name, line in STEPS:
        if name == GIT:
            _git(work, *shlex.split(line))
            continue
        if cache == "cold":  # an empty cache of its own: nothing this step reads was kept
            env["CORPUS_CACHE_DIR"] = str(scratch / "cold" / name)
        found.update(_run_step(name, line, work, env))
    kept = (
        p for p in work.rglob("*") if p.is_file() and not {".git", "__pycache__"} & set(p.parts)
    )
    for path in sorted(kept):  # bytecode differs by tree: it is no output of the CLI
        found[f"repo: {path.relative_to(work)}"] = path.read_bytes().decode(
            "utf-8", "backslashreplace"
        )
    commits = _git(work, "log", "--format=%H", "--all").split()
    return {k: _blank(v, scratch, commits, k.split(":")[0] in _FRESH) for k, v in found.items()}


def _run_step(name: str, line: str, work: Path, env: dict[str, str]) -> dict[str, str]:
    out = work.parent / "out" / name
    out.mkdir(parents=True)
    results, lenient = out.parent / "files/results.json", out.parent / "check-files/lenient.json"
    unread = work.parent / "unread" / name
    unread.mkdir(parents=True)
    given = {"o": out, "x": unread, "results": results, "lenient": lenient}
    args = [a.format(**given) for a in shlex.split(line)]
    done = subprocess.run(
        [sys.executable, "-m", "corpus_tool", *args],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    found = {f"{name}: exit": str(done.returncode), f"{name}: stdout": done.stdout}
    found[f"{name}: stderr"] = done.stderr
    for written in sorted(out.iterdir()):
        found[f"{name}: {written.name}"] = written.read_text(encoding="utf-8")
    return found


def _scratch_repo(tree: Path, work: Path) -> None:
    """A git repository holding the tree's example corpus, incidents and agent, in three commits:
    the examples; a prompt change (every case affected); an inventory change (its cases only)."""
    for part in COPIED:
        shutil.copytree(tree / "examples" / part, work / "examples" / part)
    incident = json.loads((tree / "examples/incidents/refund-success.json").read_text("utf-8"))
    incident["input"]["userMessage"] += f" Write to {EMAIL}."
    (work / "email.json").write_text(json.dumps(incident, indent=2) + "\n", encoding="utf-8")
    _git(work, "init", "-q", "-b", "main")
    _commit(work, "the examples")
    prompt = work / "examples/refund_agent/prompts/refund-v13.txt"
    prompt.write_text(prompt.read_text("utf-8") + "\n", encoding="utf-8")
    _commit(work, "a prompt change")
    calc = work / "examples/refund_agent/inventory/calc.py"
    calc.write_text(calc.read_text("utf-8") + "# reviewed\n", encoding="utf-8")
    _commit(work, "an inventory change")


def _commit(work: Path, message: str) -> None:
    _git(work, "add", "-A")
    _git(work, "commit", "-q", "-m", message)


def _git(work: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(
        ["git", *args], cwd=work, env=env, check=True, capture_output=True, text=True
    )
    return done.stdout


def _blank(text: str, scratch: Path, commits: list[str], fresh: bool) -> str:
    text = text.replace(str(scratch), "<scratch>")
    for n, commit in enumerate(commits):  # pinned dates: they differ only if the examples do
        text = re.sub(rf"\b{commit[:7]}[0-9a-f]*\b", _commit_blank(n), text)
    for pattern, blank in _TIMES + (_FRESH_KEY if fresh else []):
        text = pattern.sub(blank, text)
    return text


def _commit_blank(n: int) -> Callable[[re.Match[str]], str]:
    return lambda found: f"<commit {n}:{len(found[0])}>"  # the length stays compared


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="compare_cli", description=__doc__.split("\n")[0])
    parser.add_argument("base", metavar="BASE_REV")
    parser.add_argument("--cache", choices=MODES, default="mixed")
    parser.add_argument("--base-cache", choices=MODES, help="the base side's (default: --cache)")
    args = parser.parse_args(argv)
    modes = (args.base_cache or args.cache, args.cache)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(
            ["git", "worktree", "add", "--detach", "-q", str(base), args.base], cwd=ROOT, check=True
        )
        try:
            with ThreadPoolExecutor(2) as pool:  # the two sides share nothing: run them at once
                scratch = (Path(tmp) / "before", Path(tmp) / "after")
                before, after = pool.map(outputs, (base, ROOT), scratch, modes)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT)
    caches = modes[1] if modes[0] == modes[1] else f"{modes[1]} against {modes[0]}"
    return report(before, after, f"{args.base} (caches: {caches})")


def report(before: dict[str, str], after: dict[str, str], rev: str) -> int:
    """Print a unified diff of each differing output and the count; 1 when any differs."""
    keys = list(before) + [k for k in after if k not in before]
    changed = [k for k in keys if before.get(k) != after.get(k)]
    for key in changed:
        diff = difflib.unified_diff(
            before.get(key, "").splitlines(), after.get(key, "").splitlines(), key, key, lineterm=""
        )
        print("\n".join(diff))
    print(f"{len(keys)} outputs compared, {len(changed)} differ from {rev}")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
