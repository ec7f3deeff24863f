"""File I/O under every layer: atomic writes, YAML building and reading, the JSON schemas and
their migrations, file locks, and the escaping of untrusted text in output."""

from __future__ import annotations
