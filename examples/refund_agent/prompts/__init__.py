"""The agent's prompts, one file per version."""

from __future__ import annotations

from pathlib import Path

CURRENT = {"refund": "refund-v13", "inventory": "inventory-v2"}


def load(version: str) -> str:
    """The text of a prompt version (prompts/<version>.txt)."""
    return (Path(__file__).parent / f"{version}.txt").read_text(encoding="utf-8").strip()
