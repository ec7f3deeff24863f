"""The findings cache: a warm `corpus validate` reports exactly what a cold one does.

Each test changes something a verdict depends on (a case file, the allow-list, corpus.yaml,
the tool's version), then compares the cached run with `--no-cache` byte for byte. The cache
is also attacked: a corrupt, stale or unwritable cache is never trusted and never stops a run.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from collections import Counter
from datetime import date, timedelta
from pathlib import Path

import pytest

from corpus_tool.io import files, schema
from corpus_tool.validate import cache as findings_cache
from corpus_tool.validate import stats
from corpus_tool.validate.documents import DIRECTORY as DOCUMENTS
from corpus_tool.validate.documents import read_sealed
from tests import processes
from tests.conftest import EXAMPLES, TEST_KEY, Cli

PLANTED = "jane.doe@example.com"
SOON = (date.today() + timedelta(days=30)).isoformat()  # the corpus allows 90 days ahead


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """The example corpus, with an unredacted email planted in one trace."""
    root = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "corpus", root)
    trace = root / "cases/refund-success/trace.yaml"
    text = trace.read_text(encoding="utf-8")
    text = text.replace("channel: web", f"channel: web\n    email: {PLANTED}", 1)
    trace.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often each file is parsed (every YAML parse goes through parse_yaml_spans)."""
    seen: Counter[str] = Counter()
    real = files.parse_yaml_spans

    def counting(text: str | bytes, path: Path) -> tuple[object, object]:
        seen[Path(path).name] += 1
        return real(text, path)

    monkeypatch.setattr(files, "parse_yaml_spans", counting)
    return seen


def same_as_cold(cli: Cli, corpus: Path, *paths: str) -> tuple[int, dict[str, object]]:
    """Validate cached, twice, and afresh; all three must say exactly the same."""
    runs = [cli("validate", *paths, "--format", "json", cwd=corpus) for _ in range(2)]
    cold = cli("validate", *paths, "--format", "json", "--no-cache", cwd=corpus)
    for run in runs:
        assert (run.code, run.out) == (cold.code, cold.out)
    return cold.code, json.loads(cold.out)


def rules(report: dict[str, object]) -> set[tuple[str, str]]:
    found = report["findings"]
    assert isinstance(found, list)
    return {(f["path"], f["rule"]) for f in found}


def test_a_warm_run_reads_the_cache_and_parses_no_case(
    cli: Cli, corpus: Path, parses: Counter[str]
) -> None:
    code, report = same_as_cold(cli, corpus)
    assert code == 1 and ("cases/refund-success/trace.yaml", "redaction.email") in rules(report)
    parses.clear()
    assert cli("-C", corpus, "validate").code == 1
    assert parses["trace.yaml"] == 0 and parses["expected.yaml"] == 0, parses


def test_changing_one_file_changes_its_findings_only(cli: Cli, corpus: Path) -> None:
    same_as_cold(cli, corpus)
    expected = corpus / "cases/inventory-zero-stock/expected.yaml"
    expected.write_text(expected.read_text().replace("tier: fast", "tier: sometimes"))
    code, report = same_as_cold(cli, corpus)
    assert ("cases/inventory-zero-stock/expected.yaml", "schema") in rules(report)
    # ... and the file given alone, as the pre-commit hook passes it
    code, alone = same_as_cold(cli, corpus, str(expected))
    assert code == 1 and rules(alone) == {("cases/inventory-zero-stock/expected.yaml", "schema")}


def test_the_allow_list_decides_with_a_warm_cache(cli: Cli, corpus: Path) -> None:
    _, report = same_as_cold(cli, corpus)
    [finding] = [f for f in report["findings"] if f["rule"] == "redaction.email"]  # type: ignore[union-attr]
    fingerprint = re.search(r"fp-[0-9a-f]{16}", finding["message"])
    assert fingerprint is not None
    waiver = corpus / "waivers/W-mail.yaml"
    waiver.write_text(
        "schema_version: 1\nid: W-mail\nkind: redaction\ndetector: email\n"
        f"fingerprint: {fingerprint.group()}\nreason: a test address\nowner: qa\n"
        f"expires: '{SOON}'\n"
    )
    code, report = same_as_cold(cli, corpus)
    assert code == 0, report  # allowed now: the cached finding is not replayed
    waiver.unlink()
    code, report = same_as_cold(cli, corpus)
    assert code == 1 and ("cases/refund-success/trace.yaml", "redaction.email") in rules(report)


def test_an_allowed_value_keeps_its_allow_list_entry_in_use(cli: Cli, corpus: Path) -> None:
    """The stale-entry rule needs every use of an entry, cached or not."""
    _, report = same_as_cold(cli, corpus)
    [finding] = [f for f in report["findings"] if f["rule"] == "redaction.email"]  # type: ignore[union-attr]
    fingerprint = re.search(r"fp-[0-9a-f]{16}", finding["message"])
    assert fingerprint is not None
    (corpus / "waivers/W-mail.yaml").write_text(
        "schema_version: 1\nid: W-mail\nkind: redaction\ndetector: email\n"
        f"fingerprint: {fingerprint.group()}\nreason: a test address\nowner: qa\n"
        f"expires: '{SOON}'\n"
    )
    for _ in range(3):
        code, report = same_as_cold(cli, corpus)
        assert code == 0 and "redaction.allow_unused" not in str(report)


def test_corpus_yaml_is_part_of_every_key(cli: Cli, corpus: Path) -> None:
    same_as_cold(cli, corpus)
    config = corpus / "corpus.yaml"
    # `channel` becomes a secret-named key: its value is now a finding in every trace holding it
    config.write_text(config.read_text().replace("drop_keys: [", "drop_keys: [channel, "))
    code, report = same_as_cold(cli, corpus)
    assert code == 1
    assert ("cases/refund-success/trace.yaml", "redaction.secret_key") in rules(report)


def test_another_tool_version_never_reads_this_ones_entries(
    cli: Cli, corpus: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    same_as_cold(cli, corpus)
    _poison(cache_dir / findings_cache.FILE_NAME)
    poisoned = cli("-C", corpus, "validate", "--format", "json")
    assert poisoned.code == 0  # the doctored entries are used: the cache is what was read
    monkeypatch.setattr(findings_cache, "__version__", "99.0.0")
    findings_cache.tool_fingerprint.cache_clear()
    try:
        code, report = same_as_cold(cli, corpus)
    finally:
        findings_cache.tool_fingerprint.cache_clear()
    assert code == 1 and ("cases/refund-success/trace.yaml", "redaction.email") in rules(report)


def test_an_edited_schema_of_a_source_checkout_is_another_tool(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A checkout keeps its schemas at its top, outside the package: a schema edited there
    changes what validation finds, so it must change the tool's fingerprint too."""
    copy = tmp_path / "schemas"
    shutil.copytree(schema.schema_dir(), copy)
    monkeypatch.setattr(schema, "schema_dir", lambda: copy)
    findings_cache.tool_fingerprint.cache_clear()
    try:
        before = findings_cache.tool_fingerprint()
        findings_cache.tool_fingerprint.cache_clear()
        assert findings_cache.tool_fingerprint() == before
        trace = copy / "trace.schema.json"
        trace.write_text(trace.read_text(encoding="utf-8") + "\n", encoding="utf-8")
        findings_cache.tool_fingerprint.cache_clear()
        assert findings_cache.tool_fingerprint() != before
    finally:
        findings_cache.tool_fingerprint.cache_clear()


def _poison(path: Path) -> None:
    """Every entry claims its case is clean, under a valid checksum: a cache of another tool."""
    body = json.loads(path.read_text().partition("\n")[2])
    body["values"] = [[[], *value[1:]] for value in body["values"]]  # what the keys name
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    digest = findings_cache._digest(text)
    path.write_text(f"sha256 {digest}\n{text}")


CORRUPTIONS = {
    "flipped byte": lambda text: text[:-5] + ("0" if text[-5] != "0" else "1") + text[-4:],
    "truncated": lambda text: text[: len(text) // 2],
    "not the format": lambda text: _resigned(text, lambda body: {**body, "format": 0}),
    "entries of another shape": lambda text: _resigned(
        text, lambda body: {**body, "entries": {k: [["x"], 7] for k in body["entries"]}}
    ),
    "positions past the values": lambda text: _resigned(
        text, lambda body: {**body, "entries": {k: 10**6 for k in body["entries"]}}
    ),
    "true for a position": lambda text: _resigned(
        text, lambda body: {**body, "entries": {k: True for k in body["entries"]}}
    ),
    "no values": lambda text: _resigned(text, lambda body: {**body, "values": {}}),
    "empty": lambda text: "",
    "binary": lambda text: "\x00\xff" * 10,
}


def _resigned(text: str, change: object) -> str:
    body = json.loads(text.partition("\n")[2])
    new = json.dumps(change(body), sort_keys=True, separators=(",", ":"))  # type: ignore[operator]
    return f"sha256 {findings_cache._digest(new)}\n{new}"


@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
def test_a_corrupt_cache_is_rebuilt_never_trusted(
    cli: Cli, corpus: Path, cache_dir: Path, corruption: str
) -> None:
    cold = cli("-C", corpus, "validate", "--format", "json", "--no-cache")
    assert cli("-C", corpus, "validate").code == cold.code
    _poison(cache_dir / findings_cache.FILE_NAME)
    path = cache_dir / findings_cache.FILE_NAME
    path.write_text(CORRUPTIONS[corruption](path.read_text()), encoding="utf-8", errors="replace")
    warm = cli("-C", corpus, "validate", "--format", "json")
    assert (warm.code, warm.out) == (cold.code, cold.out)
    again = cli("-C", corpus, "validate", "--format", "json")  # rebuilt: trusted again
    assert (again.code, again.out) == (cold.code, cold.out)
    assert path.read_text().startswith("sha256 ")


def test_what_a_killed_save_left_is_removed_by_the_next_run(
    cli: Cli, corpus: Path, cache_dir: Path
) -> None:
    cold = cli("-C", corpus, "validate", "--format", "json", "--no-cache")
    assert cli("-C", corpus, "validate").code == cold.code  # the cache is written
    name = findings_cache.FILE_NAME
    left = cache_dir / f".{name}.k1ll3d.tmp"  # as a save killed before its rename leaves it
    left.write_text("half a cache", encoding="utf-8")
    warm = cli("-C", corpus, "validate", "--format", "json")  # nothing new to save: tidies
    assert (warm.code, warm.out) == (cold.code, cold.out)
    assert sorted(p.name for p in cache_dir.iterdir()) == [DOCUMENTS, stats.DIRECTORY, name]
    assert files.read_checksummed(cache_dir / name, findings_cache.FORMAT) is not None


def test_a_cache_that_cannot_be_written_is_no_error(
    cli: Cli, corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory should be")
    monkeypatch.setenv("CORPUS_CACHE_DIR", str(blocker))
    cold = cli("-C", corpus, "validate", "--format", "json", "--no-cache")
    for _ in range(2):
        warm = cli("-C", corpus, "validate", "--format", "json")
        assert (warm.code, warm.out) == (cold.code, cold.out)


def test_without_the_override_the_cache_lives_in_the_git_dir(
    cli: Cli, corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, git_repo: Path
) -> None:
    monkeypatch.delenv("CORPUS_CACHE_DIR")
    moved = git_repo / "evals"
    shutil.move(corpus, moved)
    assert cli("-C", moved, "validate").code == 1
    assert (git_repo / ".git/corpus-tool" / findings_cache.FILE_NAME).is_file()
    assert not list(moved.rglob(findings_cache.FILE_NAME))  # never inside the tracked tree


def test_the_key_rules_count_cases_the_cache_answered_for(cli: Cli, corpus: Path) -> None:
    """A corpus split over two keys is reported on a warm run too: the cache keeps key ids."""
    trace = corpus / "cases/inventory-zero-stock/trace.yaml"
    text = trace.read_text()
    assert "key_id: k-8005b167ed9c" in text
    trace.write_text(text.replace("key_id: k-8005b167ed9c", "key_id: k-000000000001"))
    code, report = same_as_cold(cli, corpus)
    assert code == 1 and ("corpus.yaml", "redaction.split_key") in rules(report)


def test_validates_racing_on_one_cache_leave_it_sound_and_say_what_a_cold_run_says(
    cli: Cli, corpus: Path, cache_dir: Path, tmp_path: Path
) -> None:
    """Runs of two corpora sharing one cache file save it at once, round after round, while a
    case changes between rounds: each run says what `--no-cache` says, and the file left is one
    whole cache (whichever writer won), its entries answering warm runs of either corpus. The
    file-stats tables race too: three runs of each corpus save its table at once."""
    other = tmp_path / "other"
    shutil.copytree(EXAMPLES / "corpus", other)
    time.sleep(2.1)  # past the real 2 s margin (the suite's own is 0): the runs enter the files
    expected = other / "cases/inventory-zero-stock/expected.yaml"
    path = cache_dir / findings_cache.FILE_NAME
    env = {"CORPUS_CACHE_DIR": str(cache_dir), "CORPUS_REDACTION_KEY": TEST_KEY}
    for round_, tier in enumerate(["fast", "sometimes", "full", "fast"]):
        expected.write_text(re.sub(r"tier: \w+", f"tier: {tier}", expected.read_text()))
        logs = tmp_path / f"logs-{round_}"
        argvs = [["-C", str(root), "validate", "--format", "json"] for root in (corpus, other)]
        cold = processes.run_together([[*a, "--no-cache"] for a in argvs], tmp_path, env, logs)
        assert cold[0].code == 1 and "redaction.email" in cold[0].out  # the planted address
        assert cold[1].code == (tier == "sometimes"), cold[1].out  # the schema knows no such tier
        for n, ran in enumerate(processes.run_together(argvs * 3, tmp_path, env, logs)):
            assert (ran.code, ran.out) == (cold[n % 2].code, cold[n % 2].out), (round_, n, ran.err)
        assert findings_cache._verified_entries(path), (round_, path.read_text()[:200])
        # no temporary left; the tables once runs found their findings cached (round 0's
        # later runs may already have: they race its first ones)
        left = {p.name for p in cache_dir.iterdir()} - {stats.DIRECTORY}
        assert sorted(left) == [DOCUMENTS, path.name]
        folder = cache_dir / stats.DIRECTORY
        tables = list(folder.iterdir()) if folder.is_dir() else []
        assert len(tables) == 2 or (round_ == 0 and len(tables) < 2), tables  # one a corpus
        for table in tables:  # each one whole table, whichever writer won
            name = table.read_bytes().split(b" ")[4].decode()
            assert read_sealed(table, stats.MAGIC, stats.FORMAT, name, 1 << 30), table
    same_as_cold(cli, corpus)
    same_as_cold(cli, other)


def test_validating_one_file_keeps_the_whole_corpus_entries(
    cli: Cli, corpus: Path, parses: Counter[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hook's run of one changed file keeps what the last whole run learnt: the next whole
    run parses that file's case alone (no spare entries here, so only the bound decides)."""
    monkeypatch.setattr(findings_cache, "SPARE_ENTRIES", 0)
    cases = [p for p in (corpus / "cases").iterdir() if p.is_dir()]
    assert len(cases) > 2
    assert cli("-C", corpus, "validate").code == 1
    changed = corpus / "cases/inventory-zero-stock/expected.yaml"
    changed.write_text(changed.read_text(encoding="utf-8") + "# reviewed\n", encoding="utf-8")
    assert cli("validate", changed).code == 0
    parses.clear()
    code, _ = same_as_cold(cli, corpus)  # cached twice, then afresh
    assert code == 1
    # the --no-cache run's parses, and the changed case's in the first cached run (a hook's
    # run of a few files validates them afresh and leaves the cache alone)
    assert parses["trace.yaml"] == len(cases) + 1, parses
