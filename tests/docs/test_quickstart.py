"""The README's quick start, pasted line by line into a new git repository, does what it says.

The block is read out of README.md, so the README cannot drift from what works. Only the install
line's placeholder is replaced (by this checkout's path); everything else runs as printed, in a
fresh venv, with the real pre-commit installing the real hook.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLES, GIT_ENV, ROOT, git

PLACEHOLDER = "git+<repo-url>@<tag>"
MARK = "@@quickstart-status"


def quick_start() -> list[str]:
    """The command lines of the README's quick start block."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start in your repository", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None, "README.md: the quick start has no ```sh block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def _script(lines: list[str]) -> str:
    """Each line as typed, then its exit status on a marked line."""
    out = ["exec 2>&1"]
    for number, line in enumerate(lines):
        out += [line, f'echo "{MARK} {number} $?"']
    return "\n".join(out) + "\n"


def _environment(home: Path) -> dict[str, str]:
    """A user's shell: a fresh HOME, an editor that saves as is, no venv of ours on PATH."""
    ours = str(Path(sys.executable).parent)
    path = [str(Path(sys.base_prefix) / "bin")]  # the Python the user would make a venv with
    path += [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p != ours]
    dropped = ("PYTHONPATH", "VIRTUAL_ENV", "CORPUS_REDACTION_KEY")  # no key from our shell
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    cache = subprocess.run(
        [sys.executable, "-m", "pip", "cache", "dir"], capture_output=True, text=True, check=False
    ).stdout.strip()
    env.update(GIT_ENV)
    env.update(HOME=str(home), EDITOR="true", PATH=os.pathsep.join(path))
    if cache:  # downloads the suite already made are reused; the venv itself starts empty
        env["PIP_CACHE_DIR"] = cache
    return env


@dataclass(frozen=True)
class QuickStart:
    """The quick start as one shell ran it: its lines, what each said and its exit status."""

    lines: list[str]
    said: list[str]
    statuses: list[int]
    repo: Path
    home: Path


def _run(script: str, repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", script],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.fixture(scope="module")
def first_shell(tmp_path_factory: pytest.TempPathFactory) -> QuickStart:
    """The whole quick start, line by line, in a new git repository (one shell session)."""
    tmp_path = tmp_path_factory.mktemp("quickstart")
    lines = quick_start()
    installs = [i for i, line in enumerate(lines) if PLACEHOLDER in line]
    assert len(installs) == 1, f"one install line with {PLACEHOLDER}"
    lines[installs[0]] = lines[installs[0]].replace(PLACEHOLDER, str(ROOT))
    home = tmp_path / "home"
    (home / "Downloads").mkdir(parents=True)
    shutil.copy(
        EXAMPLES / "incidents/create-refund-lost-retry.json", home / "Downloads/incident.json"
    )
    repo = tmp_path / "agent-repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    done = _run(_script(lines), repo, _environment(home))
    said, statuses = _split(done.stdout)
    assert len(statuses) == len(lines), said
    return QuickStart(lines, said, statuses, repo, home)


@pytest.mark.slow
def test_readme_quick_start_ends_in_a_blocked_commit_and_a_passing_one(
    first_shell: QuickStart,
) -> None:
    lines, said, statuses, repo = (
        first_shell.lines,
        first_shell.said,
        first_shell.statuses,
        first_shell.repo,
    )
    blocked = [n for n, line in enumerate(lines) if "# blocked" in line]
    for number, line in enumerate(lines):
        ok = statuses[number] != 0 if number in blocked else statuses[number] == 0
        assert ok, f"line {number + 1} exited {statuses[number]}: {line}\n{said[number]}"

    # what git holds, not what the tool said: the case committed, the slip nowhere
    [blocked_at] = blocked
    assert lines[blocked_at].startswith("git commit")
    assert "[redaction.email]" in said[blocked_at] and "expected.yaml" in said[blocked_at]
    assert (repo / ".git/hooks/pre-commit").is_file()
    tree = git(repo, "ls-tree", "-r", "--name-only", "HEAD").split()
    case = "evals/cases/refund-double-charge"
    assert {"evals/corpus.yaml", f"{case}/trace.yaml", f"{case}/expected.yaml"} <= set(tree)
    assert len(git(repo, "log", "--format=%H").split()) == 2  # the corpus, then the case
    planted = re.search(r"[\w.]+@[\w.]+", lines[blocked_at - 1])
    assert planted is not None, "the line before the blocked commit plants an e-mail"
    assert planted.group() not in git(repo, "log", "-p", "--all")
    assert git(repo, "status", "--porcelain") == ""


def _key_id(repo: Path, case: str) -> str:
    trace = yaml.safe_load((repo / f"evals/cases/{case}/trace.yaml").read_text(encoding="utf-8"))
    return str(trace["redaction"]["key_id"])


@pytest.mark.slow
def test_readme_quick_start_keeps_the_key_for_a_second_shell(first_shell: QuickStart) -> None:
    """A new terminal (its own bash session, another environment, nothing exported from the
    first) activates the environment and adds a second incident with the quick start's own
    lines: the corpus finds its key through corpus.yaml, so both cases carry one key id."""
    lines, repo, home = first_shell.lines, first_shell.repo, first_shell.home
    assert not any(line.lstrip().startswith("export ") for line in lines), "nothing exported"
    first = "refund-double-charge"
    add = next(n for n, line in enumerate(lines) if line.startswith("corpus add "))
    assert first_shell.statuses[add] == 0, first_shell.said[add]
    activate = lines[0].split("&&", 1)[1].split("#", 1)[0].strip()  # the venv, not a new one
    second = [activate] + [
        line.replace(first, "refund-second")
        for line in lines[add : add + 3]  # add, review, commit
    ]
    shutil.copy(EXAMPLES / "incidents/refund-success.json", home / "Downloads/incident.json")
    env = _environment(home)
    env.update(TMPDIR=str(home), TERM_SESSION_ID="second-terminal")
    assert not any("REDACTION_KEY" in name for name in env)
    done = _run(_script(second), repo, env)
    said, statuses = _split(done.stdout)
    shown = "\n".join(f"{line}\n{out}" for line, out in zip(second, said, strict=False))
    assert statuses == [0] * len(second), shown
    assert _key_id(repo, "refund-second") == _key_id(repo, first)
    assert "refund-second" in git(repo, "ls-tree", "-r", "--name-only", "HEAD")


def _split(output: str) -> tuple[list[str], list[int]]:
    """The output of each line, and each line's exit status."""
    said, statuses, current = [], [], []
    for text in output.splitlines():
        if text.startswith(MARK):
            statuses.append(int(text.split()[-1]))
            said.append("\n".join(current))
            current = []
        else:
            current.append(text)
    return said, statuses


def test_no_doc_installs_a_distribution_that_is_not_published() -> None:
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for doc in docs:
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            command = line.split("#", 1)[0]  # a comment may name the project
            # a PEP 508 direct reference names it with an extra: `corpus-tool[x] @ git+...`
            assert not re.search(
                r"pip install\b.*(?<![\w/@+.-])corpus-tool(?![\w/@.-])(?!\[[\w,-]+\] @ )", command
            ), f"{doc.name}:{number}: corpus-tool is not on PyPI; install {PLACEHOLDER}"
