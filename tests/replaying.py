"""Replaying one case directory in-process, for tests that drive the engine directly."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from corpus_tool.model.expected import Expected
from corpus_tool.model.trace import Trace
from corpus_tool.replay.engine import CaseSpec, Replayed, replay
from corpus_tool.replay.matching import ignored_fields

Agent = Callable[[dict[str, Any], Any], Any]


def replay_case(case_dir: Path, agent: Agent, mode: str = "strict", **changes: Any) -> Replayed:
    """Replay a case directory; `changes` replace top-level keys of its expected.yaml."""
    trace = yaml.safe_load((case_dir / "trace.yaml").read_text(encoding="utf-8"))
    expected = yaml.safe_load((case_dir / "expected.yaml").read_text(encoding="utf-8"))
    spec = CaseSpec(
        Trace.from_doc(trace),
        Expected.from_doc({**expected, **changes}),
        mode,
        ignored_fields(None),
    )
    return replay(agent, spec)
