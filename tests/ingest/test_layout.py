"""The ingest package's layering: formats stand alone, helpers come from their owners."""

from __future__ import annotations

import ast
from pathlib import Path

import corpus_tool.ingest

INGEST = Path(corpus_tool.ingest.__file__).parent
FORMATS = sorted(p.stem for p in (INGEST / "formats").glob("*.py") if p.stem != "__init__")


def _imports(path: Path) -> set[str]:
    """Every module a file imports (`from a.b import c` counts as a.b and a.b.c)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
    return out


def test_layout_formats_never_import_another_format() -> None:
    offenders = {
        name: sorted(m for m in _imports(INGEST / "formats" / f"{name}.py") if ".formats." in m)
        for name in FORMATS
    }
    assert FORMATS, "no format modules found"
    assert {k: v for k, v in offenders.items() if v} == {}


def test_layout_shared_modules_never_import_a_format() -> None:
    shared = [p for p in INGEST.glob("*.py") if p.name != "__init__.py"]
    offenders = {p.name: sorted(m for m in _imports(p) if "ingest.formats" in m) for p in shared}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_layout_imported_is_a_leaf() -> None:
    assert not [m for m in _imports(INGEST / "imported.py") if m.startswith("corpus_tool")]
