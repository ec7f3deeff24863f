"""Scratch repositories the documented command lines run in, built from the examples.

Two families, as the docs have two settings:
- *this repository* (`corpus -C examples/corpus ...`): a git repository holding a copy of
  `examples/`, the example corpus as it ships;
- *your repository* (everything else: the corpus in `evals/`, commands run at the root): the
  example agent's code, the example corpus moved to `evals/` and re-added under the test key (a
  rotation written in corpus.yaml, as docs/redaction.md describes, so `add` accepts the key), a
  pushed `main` (`origin/main`) and a branch `change` that edits a refund tool, and the inputs
  the documented lines name: incidents `a.json`, `b.json`, `exports/`, results `base.json`,
  `head.json`.

Each is built once per test session; every line (or block) then runs in a fresh copy.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from corpus_tool.redact.keys import RedactionKey
from tests.conftest import EXAMPLES, GIT_ENV, TEST_KEY, git

IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc")
AGENT_CODE = ("refund_agent", "incidents")
"""What of examples/ the user's repository holds: the agent's code and its incidents."""
CHANGED_TOOL = "examples/refund_agent/tools/refund.py"


def corpus(*args: str | Path, cwd: Path) -> str:
    """Run the real `corpus` while building; a failure is a broken fixture, said loudly."""
    env = {**GIT_ENV, "CORPUS_REDACTION_KEY": TEST_KEY, "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "corpus_tool", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode in (0, 1), f"corpus {args}: {done.stderr}"
    return done.stdout


def _commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def _push_main(repo: Path) -> None:
    """`origin/main` is `main`: the base the docs' lines diff against."""
    git(repo, "update-ref", "refs/remotes/origin/main", "main")


def _new_repo(repo: Path) -> None:
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    for key, value in [("user.name", "Test Author"), ("user.email", "author@example.invalid")]:
        git(repo, "config", key, value)  # a user's identity (`waivers new` takes its owner)


def this_repository(root: Path) -> Path:
    """A git repository with a copy of examples/: `-C examples/corpus` lines run at its root."""
    repo = root / "repo"
    _new_repo(repo)
    shutil.copytree(EXAMPLES, repo / "examples", ignore=IGNORED)
    _commit_all(repo, "the examples")
    _push_main(repo)
    return repo


def _example_incident(repo: Path, name: str, trace_id: str) -> Path:
    """An example incident under a new trace id, so `add` makes a new case of it."""
    incident = json.loads((EXAMPLES / "incidents/refund-success.json").read_text("utf-8"))
    incident["traceId"] = trace_id
    path = repo / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(incident, indent=2) + "\n", encoding="utf-8")
    return path


def _rotate_to_test_key(evals: Path) -> None:
    """Name the test key as the current one and move every case to it with `add --force`."""
    config = evals / "corpus.yaml"
    key_id = RedactionKey(TEST_KEY.encode(), "test").key_id
    text = config.read_text("utf-8")
    config.write_text(text.replace("redaction:\n", f"redaction:\n  key_id: {key_id}\n"), "utf-8")
    for case in sorted(p.name for p in (evals / "cases").iterdir() if p.is_dir()):
        incident = EXAMPLES / "incidents" / f"{case}.json"
        corpus(
            "-C", evals, "add", incident, "--id", case, "--force", "--allow-incomplete", cwd=evals
        )


def your_repository(root: Path) -> Path:
    """The repository of an agent with its corpus in `evals/`, on a branch with a change."""
    repo = root / "repo"
    _new_repo(repo)
    for name in AGENT_CODE:
        shutil.copytree(EXAMPLES / name, repo / "examples" / name, ignore=IGNORED)
    shutil.copytree(EXAMPLES / "corpus", repo / "evals", ignore=IGNORED)
    _rotate_to_test_key(repo / "evals")
    for name, trace_id in [("a.json", "t-a"), ("b.json", "t-b"), ("exports/c.json", "t-c")]:
        _example_incident(repo, name, trace_id)
    for side in ("base.json", "head.json"):
        corpus("-C", "evals", "replay", "--results", side, cwd=repo)
    _commit_all(repo, "the agent and its corpus")
    _push_main(repo)
    git(repo, "checkout", "-q", "-b", "change")
    with (repo / CHANGED_TOOL).open("a", encoding="utf-8") as tool:
        tool.write("# a change on the branch: the refund tools' cases are affected\n")
    _commit_all(repo, "touch the refund tools")
    return repo


def fresh_copy(template: Path, into: Path) -> Path:
    """A copy of a built scratch area (repository, home, outputs) for one line or block."""
    shutil.copytree(template, into, symlinks=True)
    return into
