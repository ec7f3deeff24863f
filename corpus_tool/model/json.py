"""JSON values as the type checker sees them: what a command builds before it writes JSON.

Only output goes through these aliases (a renderer returns a `JsonObject` that `json.dumps`
writes). Input is parsed into the typed model at the door, never passed around as `Json`.
"""

from __future__ import annotations

from typing import TypeAlias

Json: TypeAlias = bool | int | float | str | list["Json"] | dict[str, "Json"] | None
JsonObject: TypeAlias = dict[str, Json]
