"""The report as one HTML file: a Jinja2 template with its script and style inline, the list's
data as embedded JSON, the per-case details gzipped and base64'd (the page inflates them with
the browser's own DecompressionStream when a case is first opened). No network, no CDN."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from corpus_tool.io import files
from corpus_tool.model.json import Json, JsonObject
from corpus_tool.report.view import PageData

if TYPE_CHECKING:
    import jinja2


def render(view: PageData) -> str:
    """The page; the same view renders the same bytes (sorted keys, gzip without a clock)."""
    template = _environment().get_template("report.html.j2")
    script = _asset("report.js")
    page: str = template.render(
        title=view.head["title"],
        head_json=script_json(view.head),
        details=_packed(view.details),
        script=script,
        script_hash=_sha256(f"\n{script}"),
        style=_asset("report.css"),
    )
    return page


def write(path: Path, view: PageData) -> None:
    """Write the page atomically."""
    files.atomic_write(path, render(view))


def script_json(data: Json) -> str:
    """JSON safe inside a <script> element: no `<`, `>` or `&` can end it or open a comment
    (a case id or a tool result holding `</script>` stays data)."""
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, escaped)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _sha256(text: str) -> str:
    """The CSP source of the one inline script: an injected script or handler cannot run."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def _packed(details: JsonObject) -> str:
    raw = json.dumps(details, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return base64.b64encode(gzip.compress(raw.encode("utf-8"), 9, mtime=0)).decode("ascii")


@cache
def _environment() -> jinja2.Environment:
    import jinja2  # only `report` and `--html` need it

    loader = jinja2.FunctionLoader(lambda name: _asset(name))
    return jinja2.Environment(loader=loader, autoescape=True, keep_trailing_newline=True)


def _asset(name: str) -> str:
    return (resources.files("corpus_tool.report") / "assets" / name).read_text("utf-8")
