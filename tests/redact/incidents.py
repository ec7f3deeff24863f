"""Example incidents with a message of the test's choosing, added as cases under given ids."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import EXAMPLES, Cli


def incident(tmp_path: Path, name: str, message: str) -> Path:
    """The refund-success incident as `name.json`, its user message replaced by `message`."""
    data = json.loads((EXAMPLES / "incidents" / "refund-success.json").read_text("utf-8"))
    data["traceId"] = f"t-{name}"
    data["input"]["userMessage"] = message
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def add(cli: Cli, corpus: Path, tmp_path: Path, name: str, message: str) -> None:
    """`corpus add` of such an incident as case `name`; it must succeed."""
    result = cli("-C", corpus, "add", incident(tmp_path, name, message), "--id", name)
    assert result.code == 0, result.err
