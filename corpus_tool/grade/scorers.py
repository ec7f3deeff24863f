"""Semantic similarity scorers for `output.similar`: a protocol users plug into, and a fallback.

No scorer downloads a model at run time: a team that wants embeddings plugs in its own callable,
registered by name in corpus.yaml (`scorers: {embedding: evals.scoring:similarity}`). Code runs
only from that reviewed configuration: a case (`output.similar.scorer`) and the corpus default
(`replay.scorer`) name a registered scorer, never a callable, and a name nobody registered is
never imported. The built-in `lexical` scorer needs nothing but the standard library.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol, cast

from corpus_tool.errors import UsageError
from corpus_tool.model.config import LEXICAL_SCORER, Config, unregistered_scorer

LEXICAL = LEXICAL_SCORER

# CJK text has no spaces, so each ideograph/kana/hangul is its own token; other scripts split
# on non-word characters.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+")


class Scorer(Protocol):
    """Semantic similarity of `output` to `reference`, in [0, 1] (1 = same meaning)."""

    def __call__(self, output: str, reference: str) -> float: ...


def tokens(text: str) -> frozenset[str]:
    """The set of lower-cased word tokens (single characters for CJK scripts)."""
    return frozenset(_TOKEN.findall(text.casefold()))


def lexical_scorer(output: str, reference: str) -> float:
    """Token-set similarity (Dice coefficient): a fallback that knows words, not meaning."""
    a, b = tokens(output), tokens(reference)
    if not a and not b:
        return 1.0
    return 2 * len(a & b) / (len(a) + len(b))


def scorer_name(scorer: Scorer) -> str:
    """How messages name a scorer."""
    if scorer is lexical_scorer:
        return LEXICAL
    module = getattr(scorer, "__module__", None)
    name = getattr(scorer, "__qualname__", None) or type(scorer).__qualname__
    return f"{module}:{name}" if module else str(name)


@dataclass(frozen=True)
class Scorers:
    """The scorers a corpus registers by name (corpus.yaml `scorers`), and its default."""

    registered: Mapping[str, str] = field(default_factory=dict)  # name -> module:callable
    default: str | None = None  # corpus.yaml `replay.scorer`: a name

    @classmethod
    def from_config(cls, config: Config) -> Scorers:
        """The registry and default of a corpus config."""
        return cls(dict(config.scorers), config.replay.scorer)

    def resolve(self, name: str | None = None) -> Scorer | None:
        """The scorer called `name` (None: the corpus default, which may be unset).

        Only a registered entry is ever imported; any other name is a UsageError.
        """
        name = self.default if name is None else name
        if name is None:
            return None
        if name == LEXICAL:
            return lexical_scorer
        problem = unregistered_scorer(name, self.registered)
        if problem is not None:
            raise UsageError(problem)
        return resolve_scorer(self.registered[name])


def resolve_scorer(spec: str | None) -> Scorer | None:
    """The scorer a reviewed setting names: None, `lexical`, or `module:callable` (imported).

    Only for reviewed configuration (corpus.yaml `scorers`, or a caller's own code); what a
    case file names goes through `Scorers.resolve`.
    """
    if spec is None:
        return None
    if spec == LEXICAL:
        return lexical_scorer
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"scorer {spec!r} is not `module:callable` or `{LEXICAL}`")
    try:
        target: object = importlib.import_module(module_name)
        for part in attr.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError) as err:
        raise UsageError(f"scorer {spec!r} cannot be loaded ({err}); fix the name") from err
    if not callable(target):
        raise UsageError(f"scorer {spec!r} is not callable")
    return cast(Scorer, target)
