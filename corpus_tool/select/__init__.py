"""`corpus affected`: git diff reading, impact rules, the blob-id fact cache, shards."""

from __future__ import annotations
