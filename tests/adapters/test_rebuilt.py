"""A recorded tool error raised again looks, to the framework, like what the tool raised."""

from __future__ import annotations

import pytest

from corpus_tool import ToolError
from corpus_tool.adapters.rebuilt import rebuilt

ORIGINALS = [
    LookupError("x9"),
    TimeoutError("5s"),
    ConnectionResetError("reset"),
    ValueError("bad"),
]


@pytest.mark.parametrize("original", ORIGINALS)
def test_rebuilt_builtin_error_shows_as_the_original(original: Exception) -> None:
    name = type(original).__name__
    again = rebuilt(ToolError(name, str(original), seq=4))
    assert (repr(again), str(again)) == (repr(original), str(original))
    assert isinstance(again, type(original))  # `except TimeoutError` in the agent still catches
    assert isinstance(again, ToolError) and (again.type, again.message, again.seq) == (
        name, str(original), 4,
    )  # fmt: skip


def test_rebuilt_error_of_a_library_type_keeps_its_name() -> None:
    again = rebuilt(ToolError("PaymentDeclined", "card expired"))
    assert repr(again) == "PaymentDeclined('card expired')"
    assert type(again).__name__ == "PaymentDeclined" and not isinstance(again, LookupError)
    assert type(rebuilt(ToolError("PaymentDeclined", "again"))) is type(again)
