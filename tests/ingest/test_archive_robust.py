"""Hostile Inspect `.eval` archives: one line naming the archive and the entry, exit 2."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from tests.conftest import Cli


def _corrupt(path: Path) -> None:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", b'{"eval": {}}' * 1000)
    raw = bytearray(path.read_bytes())
    raw[60:80] = bytes(20)  # inside the deflate stream: the central directory stays intact
    path.write_bytes(bytes(raw))


def _huge_int(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("header.json", b'{"eval": 1' + b"0" * 5000 + b"}")


@pytest.mark.parametrize("make", [_corrupt, _huge_int], ids=["corrupt", "huge_int"])
def test_add_bad_eval_archive_is_one_line(
    make: object, tmp_path: Path, corpus_dir: Path, cli: Cli
) -> None:
    log = tmp_path / "run.eval"
    make(log)  # type: ignore[operator]
    result = cli("-C", corpus_dir, "add", log, "--format", "inspect-ai")
    assert result.code == 2, result.err
    assert f"{log}: header.json in the archive" in result.err and result.err.count("\n") == 1
    assert "internal error" not in result.err
