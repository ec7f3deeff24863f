"""corpus-tool: incident traces as a regression corpus kept in git."""

from __future__ import annotations

__version__ = "0.1.0"
