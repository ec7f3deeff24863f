"""The divergence raised inside agent code; the `Divergence` value itself is the model's
(`corpus_tool.model.divergence`), shared with the results documents that record it."""

from __future__ import annotations

from corpus_tool.model.divergence import KINDS as KINDS
from corpus_tool.model.divergence import Divergence as Divergence


class DivergenceError(BaseException):
    """Raised inside agent code at a divergence.

    A BaseException, so an agent's broad `except Exception` cannot swallow it and carry on
    with an answer the recording never gave; the runtime also keeps the divergence, so even a
    swallowed one fails the case.
    """

    def __init__(self, divergence: Divergence):
        super().__init__("\n".join(divergence.lines()))
        self.divergence = divergence
