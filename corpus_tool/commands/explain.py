"""`corpus explain [CHECK|KEY]`: how each check of expected.yaml is written, and when it passes."""

from __future__ import annotations

from typing import Any, TextIO

from corpus_tool.errors import UsageError
from corpus_tool.io.files import json_text
from corpus_tool.model.check_guide import BY_NAME, GUIDES, REPLAY_GUIDES, Guide, of_key


def explain(topic: str | None, output: str, out: TextIO) -> int:
    """Print the example and the rule of a check, of every check of a key, or list them all."""
    if topic is None:
        return _listing(output, out)
    guides = (BY_NAME[topic],) if topic in BY_NAME else of_key(topic)
    if guides:
        _write(out, output, [_entry(g) for g in guides], "\n".join(_text(g) for g in guides))
        return 0
    if topic in REPLAY_GUIDES:
        entry = {"check": topic, "key": None, "passes": REPLAY_GUIDES[topic], "example": None}
        text = f"{topic}: passes when {REPLAY_GUIDES[topic]}\n  (no expect key; a waiver "
        text += f"can name it: checks: [{topic}])\n"
        _write(out, output, [entry], text)
        return 0
    known = ", ".join([*BY_NAME, *REPLAY_GUIDES])
    raise UsageError(f"no check or expect key {topic!r}; known checks: {known}")


def _listing(output: str, out: TextIO) -> int:
    entries = [_entry(g) for g in GUIDES]
    entries += [
        {"check": n, "key": None, "passes": p, "example": None} for n, p in REPLAY_GUIDES.items()
    ]
    width = max(len(e["check"]) for e in entries)
    text = "".join(f"{e['check']:<{width}}  {e['passes']}\n" for e in entries)
    _write(out, output, entries, text + "`corpus explain CHECK` shows how to write one.\n")
    return 0


def _entry(guide: Guide) -> dict[str, Any]:
    return {"check": guide.name, "key": guide.key, "passes": guide.passes, "example": guide.block()}


def _text(guide: Guide) -> str:
    example = "".join(f"  {line}\n" for line in guide.block().splitlines())
    return f"{guide.name}: passes when {guide.passes}\n\n{example}"


def _write(out: TextIO, output: str, entries: list[dict[str, Any]], text: str) -> None:
    out.write(json_text(entries) if output == "json" else text)
