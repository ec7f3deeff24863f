"""The `shop` fixture: a real git repository with an agent and its recorded corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gate.gate_repo import ShopRepo, build


@pytest.fixture
def shop(tmp_path: Path) -> ShopRepo:
    return build(tmp_path)
