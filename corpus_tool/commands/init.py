"""`corpus init [DIR]`: corpus.yaml, cases/, waivers/ and a pre-commit hook, never overwriting."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TextIO

from corpus_tool.errors import UsageError
from corpus_tool.io import editor, files
from corpus_tool.store.corpus import CASES, CONFIG_NAME, WAIVERS

PRE_COMMIT = ".pre-commit-config.yaml"
HOOK_ID = "corpus-validate"


def _template(name: str) -> str:
    return (
        resources.files("corpus_tool")
        .joinpath("templates")
        .joinpath(name)
        .read_text(encoding="utf-8")
    )


def init(
    directory: Path,
    out: TextIO,
    install_hook: bool = False,
    pre_commit: Sequence[str] = (),
    editor: bool = False,
) -> int:
    """Create what is missing; report what was already there; say (or do) what comes next.

    With `install_hook`, `pre_commit` (the command that runs pre-commit, empty when it is not
    installed) installs the git hook; what it needs is checked before anything is written.
    """
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{directory} exists and is not a directory")
    if install_hook:
        _can_install(directory, pre_commit)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(
            f"{directory}: cannot create it ({err.strerror or err}); give a writable directory"
        ) from None
    _create(directory / CONFIG_NAME, _template("corpus.yaml"), out)
    for sub in (CASES, WAIVERS):
        _create(directory / sub / ".gitkeep", "", out)
    root = _repo_root(directory)
    _hook(root, out)
    if editor:
        _editor(root, directory, out)
    else:
        out.write(
            "editor: `corpus init --editor` associates the corpus files with their schemas "
            "(hover text, typos underlined) in .vscode/settings.json\n"
        )
    if install_hook:
        _install(root, pre_commit, out)
    else:
        out.write(
            f"next: run `pre-commit install` in {root} (or `corpus init --install-hook`) so "
            "every commit runs `corpus validate`\n"
        )
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


def _editor(root: Path, directory: Path, out: TextIO) -> None:
    """yaml-language-server's `yaml.schemas` in the workspace's .vscode/settings.json."""
    settings = root / ".vscode" / "settings.json"
    wanted = editor.associations(root, directory)
    existing = settings.read_text(encoding="utf-8") if settings.is_file() else None
    text = editor.merged(existing, wanted)
    if text is None:
        snippet = json.dumps({editor.KEY: wanted}, indent=2)
        out.write(f"{settings} is not plain JSON; add this to it:\n\n{snippet}\n")
    elif text == existing:
        out.write(f"kept     {settings} (has the schema associations)\n")
    else:
        files.atomic_write(settings, text)
        label = "updated " if existing else "created "
        out.write(f"{label} {settings} (yaml.schemas)\n")


def _can_install(directory: Path, pre_commit: Sequence[str]) -> None:
    if not pre_commit:
        raise UsageError(
            "--install-hook: pre-commit is not installed; run `pip install pre-commit`, "
            "then `corpus init --install-hook` again (or `pre-commit install`)"
        )
    if not (_repo_root(directory) / ".git").exists():
        raise UsageError(
            f"--install-hook: {directory} is not inside a git repository; run `git init` first"
        )


def _install(root: Path, pre_commit: Sequence[str], out: TextIO) -> None:
    """`pre-commit install` at the repository root: every commit now runs the hooks."""
    try:
        done = subprocess.run(
            [*pre_commit, "install"], cwd=root, capture_output=True, text=True, timeout=120
        )
    except (OSError, subprocess.SubprocessError) as err:
        raise UsageError(f"--install-hook: cannot run pre-commit ({err})") from None
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        raise UsageError(
            f"--install-hook: `pre-commit install` failed in {root}: "
            f"{said[-1] if said else f'exit {done.returncode}'}"
        )
    out.write(f"installed the git hook in {root} (pre-commit install): commits run the hooks\n")
