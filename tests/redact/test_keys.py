"""The key: environment first, then a key file outside the repository; a clear error without."""

from __future__ import annotations

import re
import stat
from pathlib import Path

import pytest

from corpus_tool.errors import CorpusError
from corpus_tool.model.config import RedactionSection
from corpus_tool.redact import keygen, load_key, write_key_file

KEY = "crk1_" + "k" * 43


def _repo(tmp_path: Path) -> Path:
    corpus = tmp_path / "repo" / "evals"
    corpus.mkdir(parents=True)
    (tmp_path / "repo" / ".git").mkdir()
    return corpus


def test_load_key_from_default_environment_variable(tmp_path: Path) -> None:
    key = load_key(RedactionSection(), tmp_path, {"CORPUS_REDACTION_KEY": KEY})
    assert key.secret == KEY.encode() and "CORPUS_REDACTION_KEY" in key.source


def test_load_key_from_configured_environment_variable(tmp_path: Path) -> None:
    config = RedactionSection(key_env="MY_KEY")
    assert load_key(config, tmp_path, {"MY_KEY": KEY}).secret == KEY.encode()


def test_load_key_missing_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match=r"CORPUS_REDACTION_KEY is not set.*corpus keygen"):
        load_key(RedactionSection(), tmp_path, {})


def test_load_key_too_short_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="fewer than 32"):
        load_key(RedactionSection(), tmp_path, {"CORPUS_REDACTION_KEY": "short"})


def test_load_key_from_file_outside_repository(tmp_path: Path) -> None:
    corpus = _repo(tmp_path)
    write_key_file(tmp_path / "keys" / "corpus.key", corpus, KEY)
    named = RedactionSection(key_file=str(tmp_path / "keys" / "corpus.key"))
    key = load_key(named, corpus, {})
    assert key.secret == KEY.encode()
    assert stat.S_IMODE((tmp_path / "keys" / "corpus.key").stat().st_mode) == 0o600


def test_load_key_refuses_file_inside_repository(tmp_path: Path) -> None:
    corpus = _repo(tmp_path)
    (tmp_path / "repo" / "corpus.key").write_text(KEY)
    with pytest.raises(CorpusError, match="inside the repository"):
        load_key(RedactionSection(key_file="../corpus.key"), corpus, {"CORPUS_REDACTION_KEY": KEY})


def test_write_key_file_refuses_repository_and_overwrite(tmp_path: Path) -> None:
    corpus = _repo(tmp_path)
    with pytest.raises(CorpusError, match="inside the repository"):
        write_key_file(corpus / "k", corpus, KEY)
    write_key_file(tmp_path / "k", corpus, KEY)
    with pytest.raises(CorpusError, match="exists"):
        write_key_file(tmp_path / "k", corpus, keygen())


def test_key_id_is_a_fingerprint_not_the_key(tmp_path: Path) -> None:
    key = load_key(RedactionSection(), tmp_path, {"CORPUS_REDACTION_KEY": KEY})
    assert re.fullmatch(r"k-[0-9a-f]{12}", key.key_id) and key.key_id not in KEY
    assert KEY not in repr(key)


def test_keygen_makes_fresh_long_keys() -> None:
    first, second = keygen(), keygen()
    assert first != second and len(first) >= 40 and first.startswith("crk1_")
