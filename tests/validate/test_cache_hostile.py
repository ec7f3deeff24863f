"""The findings cache of `corpus validate` survives what the `affected` cache survives.

Both caches are checksummed JSON files in the git dir; a hostile or broken one must mean
"validate again", never a hang in the pre-commit hook or an internal error.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from corpus_tool.validate import cache as findings_cache
from tests.conftest import EXAMPLES, ROOT, Cli


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """The example corpus, with an unredacted email planted in one trace (a finding to keep)."""
    root = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "corpus", root)
    trace = root / "cases/refund-success/trace.yaml"
    text = trace.read_text(encoding="utf-8")
    trace.write_text(text.replace("channel: web", "channel: web\n    email: jane.doe@example.com"))
    return root


def _validate(corpus: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """`corpus validate --format json` in a process of its own (a hang is caught, not waited)."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "corpus_tool",
            "-C",
            str(corpus),
            "validate",
            "--format",
            "json",
            *extra,
        ],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_fifo_in_place_of_the_findings_cache_does_not_hang(corpus: Path, cache_dir: Path) -> None:
    cold = _validate(corpus, "--no-cache")
    assert cold.returncode == 1 and "redaction.email" in cold.stdout
    os.mkfifo(cache_dir / findings_cache.FILE_NAME)  # reading it would block until a writer came
    warm = _validate(corpus)
    assert (warm.returncode, warm.stdout, warm.stderr) == (1, cold.stdout, "")


def test_a_checksummed_but_deeply_nested_findings_cache_is_rebuilt(
    cli: Cli, corpus: Path, cache_dir: Path
) -> None:
    cold = cli("-C", corpus, "validate", "--format", "json", "--no-cache")
    assert cold.code == 1 and "redaction.email" in cold.out
    body = '{"entries":' + "[" * 100_000 + "]" * 100_000 + ',"format":1}'
    digest = hashlib.sha256(body.encode()).hexdigest()
    path = cache_dir / findings_cache.FILE_NAME
    path.write_text(f"sha256 {digest}\n{body}", encoding="utf-8")
    warm = cli("-C", corpus, "validate", "--format", "json")
    assert (warm.code, warm.out, warm.err) == (1, cold.out, "")
    header, _, text = path.read_text(encoding="utf-8").partition("\n")
    assert header == f"sha256 {hashlib.sha256(text.encode()).hexdigest()}"  # rebuilt
    assert json.loads(text)["entries"]
