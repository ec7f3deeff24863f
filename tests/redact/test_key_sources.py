"""A key file or key variable that is no key: one line naming it, exit 2, never a hang.

corpus.yaml is committed, so `redaction.key_file: /dev/zero` (or a FIFO) in one pull request
reaches every developer whose hook runs validate. The key file gets the refusals of any input
(a regular file, a size cap); a key that is not UTF-8 is named, not an internal error. Each
command runs as a real process with a timeout and a memory cap, so a regression fails the test
instead of hanging it or exhausting the machine.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, ROOT, TEST_KEY

HANG_GUARD_S = 60  # far above a refusal's second: only a hung read reaches it
MEMORY_CAP = 1 << 30  # reading /dev/zero until memory runs out stops here


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def _run(
    corpus: Path, *args: str | Path, env: dict[bytes, bytes] | None = None
) -> subprocess.CompletedProcess[bytes]:
    argv = [sys.executable, "-m", "corpus_tool", "-C", str(corpus), *map(str, args)]
    if env is None:
        env = {k: v for k, v in os.environb.items() if k != b"CORPUS_REDACTION_KEY"}
    return subprocess.run(
        argv, capture_output=True, env=env, cwd=ROOT, timeout=HANG_GUARD_S, preexec_fn=_capped
    )


def _with_key_file(corpus: Path, key_file: Path | str) -> None:
    config = corpus / "corpus.yaml"
    text = config.read_text(encoding="utf-8")
    assert "\nredaction:\n" in text
    config.write_text(
        text.replace("\nredaction:\n", f"\nredaction:\n  key_file: {key_file}\n", 1),
        encoding="utf-8",
    )


def _refused(done: subprocess.CompletedProcess[bytes], *said: str) -> str:
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("corpus add: error: ") and "internal error" not in err, err
    for words in said:
        assert words in err, err
    return err


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the corpus's repository, where key files may live."""
    folder = tmp_path / "keys"
    folder.mkdir()
    return folder


def _fifo(folder: Path) -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("this platform has no FIFOs")
    path = folder / "key.fifo"
    os.mkfifo(path)
    return path


def test_add_refuses_a_fifo_key_file_without_hanging(corpus_dir: Path, outside: Path) -> None:
    fifo = _fifo(outside)
    _with_key_file(corpus_dir, fifo)
    done = _run(corpus_dir, "add", EXAMPLES / "incidents/refund-success.json", "--id", "c")
    _refused(done, str(fifo), "not a regular file")
    assert not (corpus_dir / "cases" / "c").exists()


def test_validate_reports_a_fifo_key_file_without_hanging(corpus_dir: Path, outside: Path) -> None:
    fifo = _fifo(outside)
    _with_key_file(corpus_dir, fifo)
    done = _run(corpus_dir, "validate")
    out = done.stdout.decode()
    assert done.returncode == 1, out + done.stderr.decode()
    assert "[redaction.key]" in out and str(fifo) in out and "not a regular file" in out


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_add_refuses_a_device_as_key_file(corpus_dir: Path, device: str) -> None:
    if not Path(device).exists():
        pytest.skip(f"this platform has no {device}")
    _with_key_file(corpus_dir, device)
    done = _run(corpus_dir, "add", EXAMPLES / "incidents/refund-success.json", "--id", "c")
    _refused(done, device, "not a regular file")


def test_add_refuses_a_huge_key_file_unread(corpus_dir: Path, outside: Path) -> None:
    huge = outside / "huge.key"
    with huge.open("wb") as handle:  # sparse: 64 MB of NUL bytes on no disk
        handle.truncate(64 * 1024 * 1024)
    _with_key_file(corpus_dir, huge)
    done = _run(corpus_dir, "add", EXAMPLES / "incidents/refund-success.json", "--id", "c")
    _refused(done, str(huge), "too big for a key")
    assert not (corpus_dir / "cases" / "c").exists()


def test_add_refuses_a_key_file_that_is_not_utf8(corpus_dir: Path, outside: Path) -> None:
    key_file = outside / "latin1.key"
    key_file.write_bytes(b"crk1_" + b"\xe9t\xe9" * 12 + b"\n")
    _with_key_file(corpus_dir, key_file)
    done = _run(corpus_dir, "add", EXAMPLES / "incidents/refund-success.json", "--id", "c")
    _refused(done, str(key_file), "not UTF-8")


def test_add_refuses_a_key_variable_that_is_not_utf8(corpus_dir: Path) -> None:
    env = {**os.environb, b"CORPUS_REDACTION_KEY": TEST_KEY.encode() + b"\xff\xfe"}
    done = _run(corpus_dir, "add", EXAMPLES / "incidents/refund-success.json", "--id", "c", env=env)
    _refused(done, "environment variable CORPUS_REDACTION_KEY", "not UTF-8")
    assert not (corpus_dir / "cases" / "c").exists()


def test_validate_reports_a_key_variable_that_is_not_utf8(corpus_dir: Path) -> None:
    env = {**os.environb, b"CORPUS_REDACTION_KEY": TEST_KEY.encode() + b"\xff\xfe"}
    done = _run(corpus_dir, "validate", env=env)
    out = done.stdout.decode()
    assert done.returncode == 1 and "internal error" not in done.stderr.decode(), out
    assert "[redaction.key]" in out and "CORPUS_REDACTION_KEY" in out and "not UTF-8" in out
