"""Every verdict a results document can carry is in docs/replay.md's verdict tables."""

from __future__ import annotations

import json
import re

from tests.conftest import ROOT


def _verdicts() -> list[str]:
    schema = json.loads((ROOT / "schemas/results.schema.json").read_text(encoding="utf-8"))
    found = re.findall(r'"verdict": \{[^}]*"enum": \[([^\]]*)\]', json.dumps(schema))
    assert found, "results.schema.json names its verdicts"
    return json.loads(f"[{found[0]}]")


def test_every_verdict_is_in_the_replay_verdict_tables() -> None:
    doc = (ROOT / "docs/replay.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `(\w+)` \|", doc, re.M))
    field = re.search(r"^\| `verdict` \| (.*) \|$", doc, re.M)
    assert field is not None
    missing = [v for v in _verdicts() if v not in rows or f"`{v}`" not in field.group(1)]
    assert missing == []
