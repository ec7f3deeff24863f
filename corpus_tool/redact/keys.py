"""The corpus redaction key: where it comes from, its public id, and making a new one.

The key is read from an environment variable (`redaction.key_env`, default
CORPUS_REDACTION_KEY) or from `redaction.key_file`, a file that must live outside the repository
so it can never be committed. Traces record only the key id, an HMAC of a fixed label.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from corpus_tool.errors import CorpusError, InputError
from corpus_tool.io import files
from corpus_tool.model.config import RedactionSection

KEY_PREFIX = "crk1_"
"""Prefix of generated keys, so a key pasted somewhere is recognisable as one."""
MIN_KEY_LENGTH = 32
MAX_KEY_FILE_BYTES = 4096
"""A key file is one line (`corpus keygen` writes 49 bytes); anything longer is not a key file,
and /dev/zero or a FIFO named in a committed corpus.yaml must not hang every developer's hook."""
HOW_TO_MAKE = (
    "make one with `corpus keygen` and export it as {env} (or write it with "
    "`corpus keygen --output FILE` to a file outside the repository and name that file in "
    "corpus.yaml redaction.key_file)"
)


@dataclass(frozen=True)
class RedactionKey:
    """The HMAC key and where it came from; its repr never shows the key."""

    secret: bytes = field(repr=False)
    source: str

    @property
    def key_id(self) -> str:
        """The public fingerprint recorded in traces: k- and 12 hex digits."""
        return "k-" + hmac.new(self.secret, b"corpus-tool key id", hashlib.sha256).hexdigest()[:12]


def keygen() -> str:
    """A fresh random key (256 bits, URL-safe text)."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def load_key(
    redaction: RedactionSection, corpus_root: Path, environ: Mapping[str, str]
) -> RedactionKey:
    """The corpus key from the environment, else from the key file; a CorpusError if neither."""
    env = redaction.key_env
    key_file = key_file_path(redaction, corpus_root)
    if environ.get(env, "").strip():
        return _checked(environ[env].strip(), f"environment variable {env}", env)
    if key_file is not None:
        return _checked(_read_key_file(key_file), f"key file {key_file}", env)
    raise CorpusError(f"no redaction key: {env} is not set; " + HOW_TO_MAKE.format(env=env))


def key_file_path(redaction: RedactionSection, corpus_root: Path) -> Path | None:
    """The configured key file, resolved; refused if it lies inside the repository."""
    name = redaction.key_file
    if not name:
        return None
    path = Path(os.path.expanduser(name))
    path = (path if path.is_absolute() else corpus_root / path).resolve()
    refuse_inside_repository(path, corpus_root)
    return path


def refuse_inside_repository(path: Path, corpus_root: Path) -> None:
    """Raise CorpusError if path is inside the repository (or corpus) holding corpus_root."""
    repo = repository_root(corpus_root)
    if path.resolve().is_relative_to(repo):
        raise CorpusError(
            f"the redaction key file {path} is inside the repository {repo}, where it could be "
            "committed; move it outside (e.g. ~/.config/corpus-tool/) and update "
            "corpus.yaml redaction.key_file"
        )


def repository_root(corpus_root: Path) -> Path:
    """The git work tree holding corpus_root, or corpus_root itself outside git."""
    start = corpus_root.resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def refuse_in_any_repository(path: Path) -> None:
    """Raise CorpusError if path lies in a git work tree: the one it would be committed to."""
    for folder in path.resolve().parents:
        if (folder / ".git").exists():
            raise CorpusError(
                f"the redaction key file {path} is inside the repository {folder}, "
                "where it could be committed; write it outside every repository (e.g. "
                "~/.config/corpus-tool/)"
            )


def write_key_file(path: Path, corpus_root: Path | None, key: str) -> None:
    """Create a key file readable by its owner only; never overwrite, never inside a repo.

    The repository that counts is the one holding `path`, wherever the command runs; with a
    corpus (outside git too) the key must not land inside that either.
    """
    path = path.expanduser().resolve()
    refuse_in_any_repository(path)
    if corpus_root is not None:
        refuse_inside_repository(path, corpus_root)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise CorpusError(f"{path} exists; keep it, or remove it first to make a new key") from None
    except OSError as err:
        raise CorpusError(
            f"cannot write {path} ({err.strerror or err}); give another path"
        ) from None
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(key + "\n")


def _read_key_file(path: Path) -> str:
    try:
        raw = files.read_bytes(path, limit=MAX_KEY_FILE_BYTES)
    except InputError as err:
        raise CorpusError(f"the redaction key file {path} {_why(path, err)}") from None
    try:
        return raw.decode("utf-8").strip()
    except UnicodeDecodeError as err:
        raise CorpusError(
            f"the redaction key file {path} is not UTF-8 text (byte {err.start + 1}); "
            "write a new key with `corpus keygen --output FILE` and name that file"
        ) from None


def _why(path: Path, err: InputError) -> str:
    """Why files.read_bytes refused a key file, in the words a key file needs."""
    if not os.path.lexists(path):
        return f"does not exist; create it with `corpus keygen --output {path}`"
    try:
        too_big = path.is_file() and path.stat().st_size > MAX_KEY_FILE_BYTES
    except OSError:
        too_big = False
    if too_big:  # the limit is the key file's own: no exporter or variable raises it
        return (
            f"is over {MAX_KEY_FILE_BYTES:,} bytes, too big for a key (`corpus keygen --output` "
            "writes one line); name the key file in corpus.yaml redaction.key_file"
        )
    return f"cannot be used: {err.message}"


def _checked(text: str, source: str, env: str) -> RedactionKey:
    try:
        secret = text.encode("utf-8")  # os.environ keeps bytes that are not UTF-8 as surrogates
    except UnicodeEncodeError:
        raise CorpusError(
            f"the redaction key from {source} is not UTF-8 text; " + HOW_TO_MAKE.format(env=env)
        ) from None
    if len(text) < MIN_KEY_LENGTH:
        raise CorpusError(
            f"the redaction key from {source} is {len(text)} characters, fewer than "
            f"{MIN_KEY_LENGTH}; " + HOW_TO_MAKE.format(env=env)
        )
    return RedactionKey(secret, source)
