"""Findings are data: what validation and the redaction check report, rendered as text or JSON."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Protocol, TextIO

from corpus_tool.io.escapes import line
from corpus_tool.io.files import json_text


@dataclass(frozen=True, order=True)
class Finding:
    """One problem in one file: where (path, line, JSON path), which rule, and what to do."""

    path: str
    line: int | None
    json_path: str
    rule: str
    message: str

    def text(self) -> str:
        """`path:line: [rule] $.json.path: message`, the line for people and editors.

        A finding about a whole file (a missing one, a directory) has no line; it shows line 1,
        so every finding matches `path:line:` (what editors and CI annotations parse).
        """
        where = f"{self.path}:{self.line or 1}"
        at = "" if self.json_path in ("", "$") else f" {self.json_path}:"
        return f"{where}: [{self.rule}]{at} {self.message}"


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Stable order: by file, then line, then rule."""
    return sorted(
        set(findings), key=lambda f: (f.path, f.line or 0, f.json_path, f.rule, f.message)
    )


class FindingsRenderer(Protocol):
    """Renders a list of findings to a stream."""

    def __call__(self, findings: list[Finding], out: TextIO, checked: int) -> None: ...


def render_text(findings: list[Finding], out: TextIO, checked: int) -> None:
    """One line a finding, then a summary."""
    for finding in findings:
        out.write(line(finding.text()) + "\n")
    noun = "file" if checked == 1 else "files"
    if findings:
        plural = "s" if len(findings) != 1 else ""
        out.write(f"{len(findings)} problem{plural} in {checked} {noun} checked\n")
    else:
        out.write(f"ok: {checked} {noun} checked, no problems\n")


def render_json(findings: list[Finding], out: TextIO, checked: int) -> None:
    """A stable JSON document: {checked, findings: [...]}."""
    doc = {"checked": checked, "findings": [asdict(f) for f in findings]}
    out.write(json_text(doc))


RENDERERS: dict[str, FindingsRenderer] = {"text": render_text, "json": render_json}
