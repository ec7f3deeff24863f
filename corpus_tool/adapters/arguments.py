"""The arguments a routed tool call sends `rt.tool`: the model's, as the tool's schema read them.

Every framework validates the model's arguments against the tool's own schema before the tool
runs. The routed call sends what that validation produced, in JSON form, for the keys the
model sent (a default the model left out is not an argument it gave; tracing exports record
the model's keys only). A code change in how a tool reads its arguments (a validator, a type)
therefore shows in replay as a `ToolArguments` divergence.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python


def read_arguments(validated: Mapping[str, Any], sent: Collection[str] | None) -> dict[str, Any]:
    """`validated` restricted to the keys the model sent (all when unknown), as JSON values."""
    return {str(k): _plain(v) for k, v in validated.items() if sent is None or k in sent}


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):  # only the fields given, as with the top-level keys
        return value.model_dump(mode="json", exclude_unset=True)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return to_jsonable_python(value)
