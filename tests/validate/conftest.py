"""Fixtures of the validation tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A copy of the example corpus (a module may define its own)."""
    root = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "corpus", root)
    return root
