"""The editor association of the corpus files with their schemas: yaml-language-server's
`yaml.schemas` setting (VS Code's YAML extension, and any editor running that server), in the
workspace's `.vscode/settings.json` rather than a modeline in each file.

Why not a modeline: the schema path is where this installation lives, so a modeline in every
trace.yaml the tool writes would put one machine's path into committed files (changing them
when someone else re-adds a case or upgrades), and the hand-written expected.yaml and waivers
would carry none. One settings file covers every case, present and future, by glob.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from corpus_tool.io.schema import schema_dir

FILES = {
    "trace": ("cases/*/trace.yaml",),
    "expected": ("cases/*/expected.yaml",),
    "waiver": ("waivers/*.yaml",),
    "corpus": ("corpus.yaml",),
}
"""Each schema and the corpus files it describes (globs relative to the corpus directory)."""
KEY = "yaml.schemas"


def associations(workspace: Path, corpus: Path) -> dict[str, list[str]]:
    """`yaml.schemas`: each installed schema file and the workspace globs it covers.

    A schema inside the workspace (a source checkout, a `.venv` in it) is named relative to
    it, the same on every machine; one elsewhere by its absolute path."""
    where = _relative(corpus.resolve(), workspace.resolve())
    prefix = "" if where in ("", ".") else f"{where}/"
    out = {}
    for kind, globs in FILES.items():
        path = (schema_dir() / f"{kind}.schema.json").resolve()
        inside = _relative(path, workspace.resolve())
        name = f"./{inside}" if inside is not None else str(path)
        out[name] = [f"{prefix}{g}" for g in globs]
    return out


def merged(settings_text: str | None, wanted: dict[str, list[str]]) -> str | None:
    """settings.json with `wanted` added to its `yaml.schemas`; None when the file is not
    plain JSON (VS Code allows comments: that file is the user's to edit by hand)."""
    try:
        settings: Any = json.loads(settings_text) if settings_text else {}
    except ValueError:
        return None
    if not isinstance(settings, dict) or not isinstance(settings.get(KEY, {}), dict):
        return None
    schemas = dict(settings.get(KEY, {}))
    schemas.update(wanted)
    return json.dumps({**settings, KEY: schemas}, indent=2, ensure_ascii=False) + "\n"


def _relative(path: Path, root: Path) -> str | None:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return None if path.is_absolute() else os.fspath(path)
