"""`corpus migrate` on a file a newer corpus-tool wrote: an error naming it, never "current"."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, Cli


@pytest.mark.parametrize("name", ["expected.yaml", "trace.yaml"])
def test_migrate_refuses_a_file_newer_than_it_knows(cli: Cli, tmp_path: Path, name: str) -> None:
    root = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "corpus", root)
    path = root / "cases" / "refund-success" / name
    text = path.read_text(encoding="utf-8")
    assert "schema_version: 1\n" in text
    path.write_text(text.replace("schema_version: 1\n", "schema_version: 7\n", 1), "utf-8")
    for args in (("migrate",), ("migrate", "--dry-run")):
        done = cli("-C", root, *args)
        assert done.code == 2, done
        assert f"refund-success/{name}" in done.err
        assert "schema_version 7 is newer than this corpus-tool knows" in done.err
        assert "upgrade corpus-tool" in done.err
        assert "nothing to migrate" not in done.out
    assert path.read_text(encoding="utf-8") == text.replace(
        "schema_version: 1\n", "schema_version: 7\n", 1
    )
