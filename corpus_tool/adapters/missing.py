"""The error an adapter raises when its framework is not installed: which extra installs it."""

from __future__ import annotations


def missing(extra: str, err: ModuleNotFoundError) -> ModuleNotFoundError:
    """`err`, saying what to install (the base install has no framework)."""
    return ModuleNotFoundError(
        f"{err.name} is not installed; this adapter needs: pip install 'corpus-tool[{extra}]'",
        name=err.name,
    )
