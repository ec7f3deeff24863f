"""Hostile input files: one line naming the file, exit 2 (or a finding, exit 1), no traceback."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from corpus_tool.errors import InputError
from corpus_tool.store.staging import staged_dir
from tests.conftest import EXAMPLES, Cli
from tests.replay.conftest import copy_corpus

HOSTILE = {
    "binary": bytes(range(256)),
    "nul": b"schema_version: 1\x00\n",
    "deep": b"a: " + b"[" * 5000 + b"]" * 5000 + b"\n",
    "huge_int": b"a: 1" + b"0" * 5000 + b"\n",
    "alias_bomb": b"a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    + b"".join(
        f"{n}: &{n} [{', '.join(['*' + p] * 10)}]\n".encode()
        for p, n in zip("abcdefgh", "bcdefghi", strict=True)
    ),
}


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "internal error" not in err and "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_broken_config_is_one_line_naming_it(kind: str, corpus_dir: Path, cli: Cli) -> None:
    (corpus_dir / "corpus.yaml").write_bytes(HOSTILE[kind])
    result = cli("-C", corpus_dir, "forget", "x@example.com", "--dry-run")
    assert result.code == 2
    assert "corpus.yaml" in _one_line(result.err)


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_trace_is_a_parse_finding_and_others_still_checked(
    kind: str, corpus_dir: Path, cli: Cli
) -> None:
    for name in ("refund-success", "inventory-zero-stock"):
        cli("-C", corpus_dir, "add", EXAMPLES / f"incidents/{name}.json", "--id", name)
    (corpus_dir / "cases/refund-success/trace.yaml").write_bytes(HOSTILE[kind])
    (corpus_dir / "cases/inventory-zero-stock/expected.yaml").write_text("status: [\n")
    result = cli("-C", corpus_dir, "validate", "--format", "json")
    assert result.code == 1, result.err
    found = {(Path(f["path"]).parts[-2], f["rule"]) for f in json.loads(result.out)["findings"]}
    assert ("refund-success", "parse") in found
    assert ("inventory-zero-stock", "parse") in found


@pytest.mark.parametrize(
    "raw",
    [b"[" * 100_000 + b"]" * 100_000, b'{"traceId": 1' + b"0" * 5000 + b"}"],
    ids=["deep", "huge_int"],
)
def test_add_hostile_json_is_refused_in_one_line(
    raw: bytes, tmp_path: Path, corpus_dir: Path, cli: Cli
) -> None:
    incident = tmp_path / "incident.json"
    incident.write_bytes(raw)
    result = cli("-C", corpus_dir, "add", incident)
    assert result.code == 2
    assert str(incident) in _one_line(result.err)
    assert not [p for p in (corpus_dir / "cases").iterdir() if p.is_dir()]


def test_validate_overlong_path_is_one_line(tmp_path: Path, cli: Cli) -> None:
    result = cli("validate", "a" * 300 + ".yaml", cwd=tmp_path)
    assert result.code == 2
    assert "no corpus.yaml in its directory or above" in _one_line(result.err)


@pytest.mark.parametrize("where", ["dir", "a-file/r.json"])
def test_results_that_cannot_be_written_is_one_line(where: str, tmp_path: Path, cli: Cli) -> None:
    corpus = copy_corpus(tmp_path)
    target = tmp_path / "dir"
    target.mkdir()
    (tmp_path / "a-file").write_text("x")
    result = cli("-C", corpus, "replay", "refund-success", "--results", tmp_path / where)
    assert result.code == 2
    assert str(tmp_path / where) in _one_line(result.err)
    assert not list(target.glob(".*.tmp"))


def test_duplicate_key_in_a_case_file_is_a_finding_with_its_line(
    corpus_dir: Path, cli: Cli
) -> None:
    cli("-C", corpus_dir, "add", EXAMPLES / "incidents/refund-success.json", "--id", "dup")
    expected = corpus_dir / "cases/dup/expected.yaml"
    text = expected.read_text(encoding="utf-8")
    expected.write_text(text + "tier: archive\n", encoding="utf-8")
    result = cli("-C", corpus_dir, "validate")
    assert result.code == 1
    line = len(expected.read_text().splitlines())
    assert f"expected.yaml:{line}: [parse] not valid YAML: duplicate key 'tier'" in result.out


@pytest.mark.parametrize("device", ["/dev/zero", "fifo"])
def test_add_refuses_a_device_or_pipe_without_reading_it(
    device: str, tmp_path: Path, corpus_dir: Path, cli: Cli
) -> None:
    source = Path(device)
    if device == "fifo":
        source = tmp_path / "incident.json"
        os.mkfifo(source)  # opening it would block until a writer came
    result = cli("-C", corpus_dir, "add", source)
    assert result.code == 2
    assert "not a regular file" in _one_line(result.err)


def test_add_mends_a_lone_surrogate_escape(tmp_path: Path, corpus_dir: Path, cli: Cli) -> None:
    doc = json.loads((EXAMPLES / "incidents/refund-success.json").read_text(encoding="utf-8"))
    doc["input"]["userMessage"] += " CUT"
    incident = tmp_path / "cut.json"  # an exporter cut the string inside a UTF-16 pair
    incident.write_text(json.dumps(doc).replace(" CUT", " \\ud83d"), encoding="utf-8")
    result = cli("-C", corpus_dir, "add", incident, "--id", "cut")
    assert result.code == 0, result.err
    trace = (corpus_dir / "cases/cut/trace.yaml").read_text(encoding="utf-8")
    assert "please refund it. \ufffd" in trace


def test_staged_dir_losing_a_race_is_an_input_error(tmp_path: Path) -> None:
    final = tmp_path / "cases" / "raced"
    with pytest.raises(InputError, match="did another run write it"), staged_dir(final) as tmp:
        (tmp / "trace.yaml").write_text("mine\n")
        final.mkdir(parents=True)  # the other run wins the rename
        (final / "trace.yaml").write_text("theirs\n")
    assert (final / "trace.yaml").read_text() == "theirs\n"
    assert [p.name for p in final.parent.iterdir()] == ["raced"]
