"""`corpus validate`: the rules, one validation run over a corpus, the findings cache, the
staged-files index of the pre-commit path, and the completeness check of a trace."""

from __future__ import annotations
