"""The waiver book (`waivers.yaml`): reading it, applying it to results, drafting entries."""

from __future__ import annotations
