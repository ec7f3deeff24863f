"""Authoring a case: a trace and its expectations assembled into the files `corpus add` writes."""

from __future__ import annotations
