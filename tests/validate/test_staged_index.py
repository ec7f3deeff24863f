"""`validate --staged` reads the index once: what it copies out of a version-2 index (made from
HEAD's tree and the staged diff) is what git's own listing and checkout-index give, byte for
byte, for every kind of staged change; an index that can hold entries HEAD and the diff do not
show (intent-to-add, skip-worktree: a version-3 file; a version-4 one, which git can be set to
write) is asked as git asks it."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from corpus_tool.validate import staged
from tests.conftest import EXAMPLES, Cli, git


@pytest.fixture
def repo(git_repo: Path, cli: Cli) -> Path:
    """A corpus (evals/) of two cases and a waiver naming one, committed."""
    assert cli("init", "evals", cwd=git_repo).code == 0
    for name in ("refund-success", "inventory-zero-stock"):
        added = cli(
            "-C", git_repo / "evals", "add", EXAMPLES / f"incidents/{name}.json", "--id", name
        )
        assert added.code == 0, added.err
    (git_repo / "evals/waivers/W-1.yaml").write_text(
        "schema_version: 1\nid: W-1\ncase: inventory-zero-stock\nchecks: [tools.required]\n"
        "reason: lands next release\nowner: shop\nexpires: '2999-01-01'\n",
        encoding="utf-8",
    )
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "corpus")
    return git_repo


def _edit_trace(repo: Path) -> None:
    trace = repo / "evals/cases/refund-success/trace.yaml"
    trace.write_bytes(trace.read_bytes() + b"# reviewed\n")
    git(repo, "add", "-A")


def _crlf_attributes(repo: Path) -> None:
    """A staged .gitattributes that converts the case files, gone from the work tree:
    checkout-index applies the index's."""
    attributes = repo / "evals/cases/.gitattributes"
    attributes.write_text("*.yaml text eol=crlf\n", encoding="utf-8")
    _edit_trace(repo)
    attributes.unlink()


def _delete_trace(repo: Path) -> None:
    git(repo, "rm", "-q", "evals/cases/refund-success/trace.yaml")


def _delete_named_case(repo: Path) -> None:
    git(repo, "rm", "-q", "-r", "evals/cases/inventory-zero-stock")


def _new_case_with_link(repo: Path) -> None:
    case = repo / "evals/cases/linked"
    case.mkdir()
    (case / "expected.yaml").write_bytes(
        (repo / "evals/cases/refund-success/expected.yaml").read_bytes()
    )
    os.symlink("../refund-success/trace.yaml", case / "trace.yaml")
    (case / "run.sh").write_text("#!/bin/sh\n", encoding="utf-8")
    (case / "run.sh").chmod(0o755)
    git(repo, "add", "-A")


def _edit_config(repo: Path) -> None:
    config = repo / "evals/corpus.yaml"
    config.write_bytes(config.read_bytes() + b"# reviewed\n")
    git(repo, "add", "-A")


def _staged_and_edited_again(repo: Path) -> None:
    """The index and the work tree disagree: the index's version is what is checked."""
    _edit_trace(repo)
    trace = repo / "evals/cases/refund-success/trace.yaml"
    trace.write_text("not: [the staged version\n", encoding="utf-8")


CHANGES: dict[str, Callable[[Path], None]] = {
    "a trace edited": _edit_trace,
    "a .gitattributes converting the case files": _crlf_attributes,
    "a trace deleted": _delete_trace,
    "a case a waiver names deleted": _delete_named_case,
    "a new case with a link and an executable": _new_case_with_link,
    "corpus.yaml edited": _edit_config,
    "staged, then edited in the work tree": _staged_and_edited_again,
}


def _copied(repo: Path, scratch: Path) -> dict[str, tuple[str, bytes]]:
    index = staged.Index(repo)
    copies, found = staged.copies(index, None, scratch, str)
    assert not found
    tree: dict[str, tuple[str, bytes]] = {}
    for path in sorted(scratch.rglob("*")):
        rel = path.relative_to(scratch).as_posix()
        if path.is_symlink():
            tree[rel] = ("link", os.readlink(path).encode())
        elif path.is_file():
            tree[rel] = (oct(path.stat().st_mode & 0o111), path.read_bytes())
        else:
            tree[rel] = ("dir", b"")
    tree["(checked)"] = ("", repr([(sorted(c.cases), sorted(c.waivers)) for c in copies]).encode())
    return {k: (m, b.replace(str(scratch).encode(), b"SCRATCH")) for k, (m, b) in tree.items()}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_copy_from_head_and_the_diff_is_what_git_checks_out(
    repo: Path, tmp_path: Path, change: str
) -> None:
    CHANGES[change](repo)
    git(repo, "update-index", "--index-version", "2")
    assert staged.Index(repo)._plain  # the fast path is the one under test
    fast = _copied(repo, tmp_path / "fast")
    git(repo, "update-index", "--index-version", "4")
    assert not staged.Index(repo)._plain
    asked = _copied(repo, tmp_path / "asked")
    assert fast == asked
    assert any(k.endswith("trace.yaml") or k.endswith(".yaml") for k in fast)


def test_an_intent_to_add_entry_is_read_from_the_index(
    repo: Path, tmp_path: Path, cli: Cli
) -> None:
    """`git add -N` needs a version-3 index: the listing comes from git, which shows it."""
    _edit_trace(repo)
    (repo / "evals/cases/refund-success/notes.yaml").write_text("a: 1\n", encoding="utf-8")
    git(repo, "add", "-N", "evals/cases/refund-success/notes.yaml")
    assert not staged.Index(repo)._plain
    copied = _copied(repo, tmp_path / "copy")
    assert copied["evals/cases/refund-success/notes.yaml"][1] == b""  # as checkout-index has it
    assert cli("validate", "--staged", cwd=repo).code == 0


def _attributes_in_the_case_at_head(repo: Path) -> None:
    """A committed .gitattributes inside the case: found through HEAD's one listing."""
    (repo / "evals/cases/refund-success/.gitattributes").write_text(
        "*.yaml text eol=crlf\n", encoding="utf-8"
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "attributes")
    _edit_trace(repo)


def _waiver_edited(repo: Path) -> None:
    waiver = repo / "evals/waivers/W-1.yaml"
    waiver.write_bytes(waiver.read_bytes() + b"# reviewed\n")
    git(repo, "add", "-A")


def _nested_corpus_name_is_a_directory(repo: Path) -> None:
    """A directory named corpus.yaml above the case: HEAD holds a tree there, which HEAD's one
    listing shows as `git ls-tree` without -r does."""
    (repo / "evals/cases/corpus.yaml").mkdir()
    (repo / "evals/cases/corpus.yaml/x").write_text("a: 1\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "odd")
    _edit_trace(repo)


LISTED = {
    **CHANGES,
    "a .gitattributes inside the case, committed": _attributes_in_the_case_at_head,
    "a waiver edited": _waiver_edited,
    "a directory named corpus.yaml above the case": _nested_corpus_name_is_a_directory,
}


@pytest.mark.parametrize("change", sorted(LISTED))
def test_one_listing_of_head_answers_as_git_asked_each_time(
    repo: Path, tmp_path: Path, change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HEAD is listed once for what the change can ask about; a question outside that
    listing (every case, after corpus.yaml changed; a case a waiver names) asks git. Either
    way the copy is what asking git each question gives."""
    LISTED[change](repo)
    asked: list[tuple[str, ...]] = []
    spawn = staged.Index._spawn

    def counted(where: Path, *args: str, **kw: object) -> object:
        asked.append(args)
        return spawn(where, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(staged.Index, "_spawn", staticmethod(counted))
    once = _copied(repo, tmp_path / "once")
    listings = [a for a in asked if "ls-tree" in a]
    # a changed corpus.yaml (every case), a waiver (the case it names) and a tree named
    # corpus.yaml (a corpus at cases/, outside the listing) ask git past the one listing
    if LISTED[change] not in (_waiver_edited, _edit_config, _nested_corpus_name_is_a_directory):
        assert len(listings) == 1, listings  # HEAD listed once, not once per question
    monkeypatch.setattr(staged, "_covered", lambda path, specs: False)
    each = _copied(repo, tmp_path / "each")
    assert once == each
    # (a tree named corpus.yaml marks a corpus there for both, which then copies nothing)
    if LISTED[change] is not _nested_corpus_name_is_a_directory:
        assert any(k.endswith(".yaml") for k in once)


def test_a_first_commit_is_checked_against_the_empty_tree(tmp_path: Path, cli: Cli) -> None:
    """No commit yet (HEAD unborn): the whole index is the change, and its version is checked."""
    repo = tmp_path / "new repo ü"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    assert cli("init", "evals", cwd=repo).code == 0
    added = cli("-C", repo / "evals", "add", EXAMPLES / "incidents/refund-success.json")
    assert added.code == 0, added.err
    git(repo, "add", "-A")
    assert not staged.Index(repo)._has_head
    first = cli("validate", "--staged", cwd=repo)
    assert first.code == 0, first.out + first.err
    (trace,) = (repo / "evals/cases").glob("*/trace.yaml")
    trace.write_text("schema_version: 9\n", encoding="utf-8")
    git(repo, "add", "-A")
    broken = cli("validate", "--staged", cwd=repo)
    assert broken.code == 1 and "schema.version" in broken.out


def test_without_git_the_hook_says_so(
    repo: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No git on PATH: a one-line usage error naming git, exit 2, not a traceback."""
    _edit_trace(repo)
    monkeypatch.setenv("PATH", str(repo / "no-such-bin"))
    done = cli("validate", "--staged", cwd=repo)
    assert done.code == 2 and "git is not installed" in done.err, done.err
