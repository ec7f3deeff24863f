"""The file-stats table: a warm `validate` or `check` reads no case file whose stat data is
what it was when its bytes were hashed, and says what a cold run says; a file changed in any
way that leaves its size and modification time alone (an edit in place, a file renamed over
it, a link put in its place) is read again; a table that is broken, foreign or another
user's is ignored and rebuilt, never trusted; a file changed within the clock's granularity
of the run is never entered.

What was read is counted here at the system's door (`os.open` of a path under cases/), not
by asking the table.
"""

from __future__ import annotations

import marshal
import os
import shutil
import stat
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from corpus_tool.validate import stats
from tests.conftest import Cli
from tests.validate.broken_entries import BREAKAGES as BROKEN_ENTRIES

PASSING = "refund-success"


@pytest.fixture
def case_reads(monkeypatch: pytest.MonkeyPatch, corpus: Path) -> Counter[str]:
    """Each open of a case file by this process (by `case/kind`), whoever asked."""
    seen: Counter[str] = Counter()
    cases = os.fspath(corpus / "cases") + os.sep
    real = os.open

    def counting(path: Any, *args: Any, **kwargs: Any) -> int:
        name = os.fspath(path)
        if isinstance(name, str) and name.startswith(cases) and name.endswith(".yaml"):
            case, _, kind = name[len(cases) :].partition(os.sep)
            seen[f"{case}/{kind.removesuffix('.yaml')}"] += 1
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", counting)
    return seen


def run(cli: Cli, corpus: Path, command: str, *extra: str) -> tuple[int, str, str]:
    code, out, err = cli("-C", corpus, command, *extra)
    return code, out, err


def primed(cli: Cli, corpus: Path, command: str) -> tuple[int, str, str]:
    """What a cold run says, after two cached runs (the first keeps findings and documents,
    the second enters the files' stat data, the corpus's files being older than the run)."""
    cold = run(cli, corpus, command, "--no-cache")
    assert run(cli, corpus, command) == cold
    assert run(cli, corpus, command) == cold
    return cold


@pytest.mark.parametrize("command", ["validate", "check"])
def test_a_warm_run_reads_no_unchanged_case_file_and_says_what_a_cold_one_says(
    cli: Cli, corpus: Path, case_reads: Counter[str], command: str
) -> None:
    cold = primed(cli, corpus, command)
    assert sum(case_reads.values()) >= 2 * 6  # the counter sees the reads
    case_reads.clear()
    assert run(cli, corpus, command) == cold
    assert case_reads == Counter(), case_reads
    assert run(cli, corpus, command, "--format", "json")[0] == cold[0]
    assert case_reads == Counter(), case_reads


def _keep_size_and_mtime(path: Path, change: Any) -> None:
    """Change the file with `change(path)`, then give it back its modification time; the
    change must keep the size (the attacker's best case: only ctime, and perhaps the inode,
    tell)."""
    before = path.stat()
    change(path)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.lstat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def _in_place(old: bytes, new: bytes) -> Any:
    def change(path: Path) -> None:
        data = path.read_bytes()
        assert len(old) == len(new) and old in data
        with open(path, "r+b") as handle:  # the same inode
            handle.write(data.replace(old, new))

    return change


def _renamed_over(old: bytes, new: bytes) -> Any:
    def change(path: Path) -> None:
        data = path.read_bytes()
        other = path.with_name("replacement.tmp")
        other.write_bytes(data.replace(old, new))
        os.replace(other, path)  # another inode

    return change


CHANGES = {"in place": _in_place, "renamed over": _renamed_over}


@pytest.mark.parametrize("how", sorted(CHANGES))
def test_an_edit_keeping_size_and_mtime_is_read_and_its_finding_shown(
    cli: Cli, corpus: Path, case_reads: Counter[str], how: str
) -> None:
    before = primed(cli, corpus, "validate")
    assert before[0] == 0
    trace = corpus / "cases" / PASSING / "trace.yaml"
    old = b"O-1001"  # an order id: written as an email address, it is personal data
    assert old in trace.read_bytes()
    _keep_size_and_mtime(trace, CHANGES[how](old, b"a@b.io"))
    case_reads.clear()
    after = run(cli, corpus, "validate")
    assert after == run(cli, corpus, "validate", "--no-cache")
    assert after[0] == 1 and "trace.yaml" in after[1], after
    assert case_reads[f"{PASSING}/trace"] >= 1


@pytest.mark.parametrize("how", sorted(CHANGES))
def test_an_edit_keeping_size_and_mtime_changes_the_verdict(
    cli: Cli, corpus: Path, how: str
) -> None:
    _, out, _ = primed(cli, corpus, "check")
    assert f"PASS  {PASSING}" in out
    expected = corpus / "cases" / PASSING / "expected.yaml"
    _keep_size_and_mtime(expected, CHANGES[how](b"amount: 19900}", b"amount: 19901}"))
    after = run(cli, corpus, "check")
    assert after == run(cli, corpus, "check", "--no-cache")
    assert f"FAIL  {PASSING}" in after[1] and after[0] == 1, after[1]


def test_a_link_put_in_a_files_place_is_refused_as_a_cold_run_refuses_it(
    cli: Cli, corpus: Path, tmp_path: Path
) -> None:
    """The same bytes outside the corpus, linked in with the file's old times: read through
    the link, they would pass."""
    primed(cli, corpus, "validate")
    trace = corpus / "cases" / PASSING / "trace.yaml"
    outside = tmp_path / "outside.yaml"
    shutil.copy2(trace, outside)
    trace.unlink()
    trace.symlink_to(outside)
    after = run(cli, corpus, "validate")
    assert after == run(cli, corpus, "validate", "--no-cache")
    assert after[0] != 0 and "trace.yaml" in after[1] + after[2]


def table(cache_dir: Path) -> Path:
    [path] = (cache_dir / stats.DIRECTORY).iterdir()
    return path


def _another_root(path: Path) -> None:
    """The table of another corpus (another root), copied under this one's name."""
    header, _, body = path.read_bytes().partition(b"\n")
    words = header.split(b" ")
    words[4] = b"0" * 64  # "corpus-tool file-stats FORMAT MARSHAL ROOT SHA"
    path.write_bytes(b" ".join(words) + b"\n" + body)


BREAKAGES = {**BROKEN_ENTRIES, "another corpus's": _another_root}


@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_a_broken_table_is_ignored_and_rebuilt(
    cli: Cli, corpus: Path, cache_dir: Path, case_reads: Counter[str], breakage: str
) -> None:
    cold = primed(cli, corpus, "check")
    path = table(cache_dir)
    BREAKAGES[breakage](path)
    case_reads.clear()
    assert run(cli, corpus, "check") == cold
    assert case_reads[f"{PASSING}/trace"] == 1, case_reads  # every case read again
    if breakage != "a directory":  # rebuilt in place: the next run reads nothing
        assert stat.S_ISREG(path.lstat().st_mode)
        case_reads.clear()
        assert run(cli, corpus, "check") == cold
        assert case_reads == Counter(), case_reads


def test_a_table_edited_to_vouch_for_a_changed_file_fails_its_checksum(
    cli: Cli, corpus: Path, cache_dir: Path
) -> None:
    """A table rewritten (by a bad disk, a stray tool) to say a changed file is unchanged, its
    new stat data beside its old digest, fails the body's SHA-256 and is ignored."""
    primed(cli, corpus, "check")
    expected = corpus / "cases" / PASSING / "expected.yaml"
    expected.write_bytes(expected.read_bytes().replace(b"amount: 19900}", b"amount: 19901}"))
    path = table(cache_dir)
    header, _, body = path.read_bytes().partition(b"\n")
    entries = marshal.loads(body)
    fields = list(stats._ENTRY.unpack(entries[PASSING]))
    info = expected.stat()
    fields[4:8] = [info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]
    entries[PASSING] = stats._ENTRY.pack(*fields)
    path.write_bytes(header + b"\n" + marshal.dumps(entries))
    after = run(cli, corpus, "check")
    assert f"FAIL  {PASSING}" in after[1], after[1]


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs root to chown")
def test_a_table_another_user_owns_is_not_read(
    cli: Cli, corpus: Path, cache_dir: Path, case_reads: Counter[str]
) -> None:
    cold = primed(cli, corpus, "validate")
    os.chown(table(cache_dir), 65534, 65534)
    case_reads.clear()
    assert run(cli, corpus, "validate") == cold
    assert case_reads[f"{PASSING}/trace"] == 1, case_reads


def test_a_place_that_cannot_be_written_is_no_error(
    cli: Cli, corpus: Path, cache_dir: Path, case_reads: Counter[str]
) -> None:
    (cache_dir / stats.DIRECTORY).write_text("a file where the tables' directory should be")
    cold = primed(cli, corpus, "check")
    case_reads.clear()
    assert run(cli, corpus, "check") == cold
    assert case_reads[f"{PASSING}/trace"] == 1  # nothing kept: read every run


def test_a_file_changed_within_the_racy_margin_is_never_entered(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With the real margin: a file written just now is read every run until it is older
    than the margin at a run's start; an entry it had is dropped, not kept."""
    monkeypatch.setattr(stats, "RACY_NS", 2_000_000_000)
    root, where = tmp_path / "corpus", tmp_path / "cache"
    folder = root / "cases" / "c1"
    folder.mkdir(parents=True)
    paths = {kind: folder / f"{kind}.yaml" for kind in stats.KINDS}
    for kind, path in paths.items():
        path.write_bytes(f"{kind}: 1\n".encode())

    def entered(started_ns: int | None = None) -> dict[str, bytes] | None:
        table = stats.FileStats(where, root)
        if started_ns is not None:
            table._cutoff = started_ns - stats.RACY_NS
        infos = {kind: path.stat() for kind, path in paths.items()}
        digests = {kind: stats.digest(path.read_bytes()) for kind, path in paths.items()}
        table.record("c1", infos, digests)
        table.save()
        return stats.FileStats(where, root).trusted("c1")

    assert entered() is None  # written just now
    later = max(p.stat().st_ctime_ns for p in paths.values()) + stats.RACY_NS + 1
    found = entered(later)  # a run starting past the margin
    assert found == {k: stats.digest(p.read_bytes()) for k, p in paths.items()}
    paths["trace"].write_bytes(b"trace: 2\n")  # the same size, changed now
    assert entered() is None
    assert stats.FileStats(where, root).trusted("c1") is None  # the old entry is gone


def test_a_time_past_64_bits_of_nanoseconds_is_not_entered_and_no_error(tmp_path: Path) -> None:
    """A file system that dates a file before 1678 (btrfs, XFS keep such times) gives a time
    in nanoseconds no 64-bit field holds: the case is read every run, the save still works."""
    root, where = tmp_path / "corpus", tmp_path / "cache"
    table = stats.FileStats(where, root)
    ancient = -(2**63) - 1  # 1677-09-21, less a nanosecond

    def info(mtime_ns: int) -> os.stat_result:  # mode, ino, dev, nlink, uid, gid, size, ...
        fields = [stat.S_IFREG | 0o644, 7, 1, 1, 0, 0, 10, 0, 0, 0, 0.0, 0.0, 0.0]
        return os.stat_result([*fields, 0, mtime_ns, 0])  # ... the three times in ns

    assert info(ancient).st_mtime_ns == ancient
    table.record(
        "c1", {kind: info(ancient) for kind in stats.KINDS}, dict.fromkeys(stats.KINDS, bytes(32))
    )
    table.record(
        "c2", {kind: info(1) for kind in stats.KINDS}, dict.fromkeys(stats.KINDS, bytes(32))
    )
    table.save()
    again = stats.FileStats(where, root)
    assert again._entries.keys() == {"c2"}


def _edited(corpus: Path) -> None:
    """A change of one case: the next run drops its entry, so it saves the table."""
    trace = corpus / "cases" / PASSING / "trace.yaml"
    trace.write_bytes(trace.read_bytes() + b"# reviewed\n")


def _sound(cli: Cli, corpus: Path, case_reads: Counter[str]) -> None:
    """The table left answers: once the edited case is entered again (the run after the one
    that checks it), a run opens no case file."""
    cold = run(cli, corpus, "validate", "--no-cache")
    assert run(cli, corpus, "validate") == cold
    case_reads.clear()
    assert run(cli, corpus, "validate") == cold
    assert case_reads == Counter(), case_reads


def test_what_a_killed_save_left_is_removed_by_the_next_save(
    cli: Cli, corpus: Path, cache_dir: Path, case_reads: Counter[str]
) -> None:
    primed(cli, corpus, "validate")
    path = table(cache_dir)
    left = path.with_name(f".{path.name}.4242.tmp")  # as a save killed before its rename
    left.write_bytes(b"half a table")
    _edited(corpus)
    run(cli, corpus, "validate")
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]
    _sound(cli, corpus, case_reads)


def test_a_save_while_another_run_saves_is_skipped_without_an_error(
    cli: Cli, corpus: Path, cache_dir: Path, case_reads: Counter[str]
) -> None:
    """Another process holds the table's save lock: this run's save is skipped (the other
    writes a table as good), nothing it was writing is removed, and the output is a cold run's."""
    primed(cli, corpus, "validate")
    path = table(cache_dir)
    before = path.read_bytes()
    theirs = path.with_name(f".{path.name}.4242.tmp")  # the other run's save in progress
    theirs.write_bytes(b"half a table")
    lock = path.with_name(f".{path.name}.lock")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from corpus_tool.io.locks import exclusive\n"
            "with exclusive(Path(sys.argv[1]), 'busy'):\n"
            "    print('held', flush=True); sys.stdin.read()",
            str(lock),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        _edited(corpus)
        assert run(cli, corpus, "validate") == run(cli, corpus, "validate", "--no-cache")
        assert path.read_bytes() == before and theirs.read_bytes() == b"half a table"
    finally:
        holder.communicate("")
    run(cli, corpus, "validate")  # the lock is free: this run saves, and tidies what was left
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]
    _sound(cli, corpus, case_reads)
