"""A pytest plugin for tests of the corpus plugin: each YAML parse this process makes appends
the sha256 of the parsed bytes to $PARSE_LOG (every parse constructs a files.Loader)."""

from __future__ import annotations

import hashlib
import os
from typing import Any

from corpus_tool.io import files

_real = files.Loader.__init__


def _logged(self: Any, stream: Any) -> None:
    data = stream.encode("utf-8") if isinstance(stream, str) else bytes(stream)
    with open(os.environ["PARSE_LOG"], "a", encoding="utf-8") as log:
        log.write(hashlib.sha256(data).hexdigest() + "\n")
    _real(self, stream)


files.Loader.__init__ = _logged  # type: ignore[method-assign]
