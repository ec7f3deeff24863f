"""`corpus init [DIR]`: corpus.yaml, cases/, waivers/ and a pre-commit hook, never overwriting."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import TextIO

from corpus_tool import files
from corpus_tool.corpus import CASES, CONFIG_NAME, WAIVERS
from corpus_tool.errors import UsageError

PRE_COMMIT = ".pre-commit-config.yaml"
HOOK_ID = "corpus-validate"


def _template(name: str) -> str:
    return (
        resources.files("corpus_tool")
        .joinpath("templates")
        .joinpath(name)
        .read_text(encoding="utf-8")
    )


def init(directory: Path, out: TextIO) -> int:
    """Create what is missing; report what was already there."""
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{directory} exists and is not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(
            f"{directory}: cannot create it ({err.strerror or err}); give a writable directory"
        ) from None
    _create(directory / CONFIG_NAME, _template("corpus.yaml"), out)
    for sub in (CASES, WAIVERS):
        _create(directory / sub / ".gitkeep", "", out)
    _hook(_repo_root(directory), out)
    return 0


def _create(path: Path, text: str, out: TextIO) -> None:
    if path.exists():
        out.write(f"kept     {path} (exists)\n")
        return
    files.atomic_write(path, text)
    out.write(f"created  {path}\n")


def _repo_root(directory: Path) -> Path:
    """The git work tree holding `directory`, where pre-commit looks for its config."""
    for candidate in (directory.resolve(), *directory.resolve().parents):
        if (candidate / ".git").exists():
            return candidate
    return directory


def _hook(root: Path, out: TextIO) -> None:
    config = root / PRE_COMMIT
    snippet = _template("pre-commit-hook.yaml")
    if not config.exists():
        files.atomic_write(config, "repos:\n" + snippet)
        out.write(f"created  {config}\n")
    elif HOOK_ID in config.read_text(encoding="utf-8"):
        out.write(f"kept     {config} (has {HOOK_ID})\n")
    else:
        out.write(f"{config} exists; add this under its `repos:` list:\n\n{snippet}\n")
