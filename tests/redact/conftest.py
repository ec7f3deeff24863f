"""Fixtures: two keys made fresh for the test session."""

from __future__ import annotations

import pytest

from corpus_tool.redact import RedactionKey, keygen


@pytest.fixture(scope="session")
def key() -> RedactionKey:
    return RedactionKey(keygen().encode(), "test")


@pytest.fixture(scope="session")
def other_key() -> RedactionKey:
    return RedactionKey(keygen().encode(), "test-other")
