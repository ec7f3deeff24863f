#!/usr/bin/env python3
"""The script of the `corpus gate` GitHub Action (action.yml at the repository root).

Runs `corpus gate --base <the pull request's base>` with `--markdown` and `--html` (the gate
appends the Markdown to $GITHUB_STEP_SUMMARY itself), posts the Markdown as one pull-request
comment that later runs edit in place (found by a hidden marker), names the HTML report in
$GITHUB_OUTPUT for the upload step (or writes none when `upload` is false), and exits with the
gate's code: 0 passed, 1 blocked, 2 a usage or input error.

Standard library only: it runs before anything but corpus-tool is installed. Inputs come as
INPUT_* variables; the event and the API from GitHub's own (GITHUB_EVENT_PATH,
GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_TOKEN). CORPUS names the command (default: corpus).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

MARKER = "<!-- corpus-gate-report -->"
"""Starts the comment this action owns: the one it edits on the next push."""
LIMIT = 65_000
"""GitHub refuses comments over 65,536 characters."""
FLAGS = {"mode": "--mode", "model": "--model", "repeat": "--repeat", "shard": "--shard"}
"""Action inputs passed to `corpus gate` as these flags when set."""


def main(env: Mapping[str, str]) -> int:
    event = _event(env)
    base = _base(event, env)
    out = Path(env.get("RUNNER_TEMP") or tempfile.mkdtemp()) / "corpus-gate"
    out.mkdir(parents=True, exist_ok=True)  # outside the checkout: the gate sees no new file
    markdown, html = out / "gate.md", out / "report.html"
    upload = _true(env.get("INPUT_UPLOAD", "true"))
    code = _gate(env, base, markdown, html if upload else None)
    _output(env, "exit-code", str(code))
    if upload and html.is_file():
        _output(env, "report", str(html))
    number = (event.get("pull_request") or {}).get("number")
    if markdown.is_file() and number and _true(env.get("INPUT_COMMENT", "true")):
        _comment(env, int(number), markdown.read_text(encoding="utf-8"))
    return code


def _event(env: Mapping[str, str]) -> dict[str, Any]:
    path = env.get("GITHUB_EVENT_PATH")
    if not path:
        return {}
    doc: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    return doc


def _base(event: Mapping[str, Any], env: Mapping[str, str]) -> str:
    """The input `base`, else the pull request's base commit, else origin/<default branch>."""
    given = env.get("INPUT_BASE", "").strip()
    if given:
        return given
    pull = event.get("pull_request") or {}
    sha = (pull.get("base") or {}).get("sha")
    if sha:
        return str(sha)
    branch = (event.get("repository") or {}).get("default_branch") or "main"
    return f"origin/{branch}"


def _gate(env: Mapping[str, str], base: str, markdown: Path, html: Path | None) -> int:
    argv = [*shlex.split(env.get("CORPUS", "corpus")), "-C", env.get("INPUT_CORPUS") or "."]
    argv += ["gate", "--base", base, "--markdown", str(markdown)]
    if html is not None:
        argv += ["--html", str(html)]
    for name, flag in FLAGS.items():
        value = env.get(f"INPUT_{name.upper()}", "").strip()
        if value:
            argv += [flag, value]
    workers = env.get("INPUT_WORKERS", "").strip()
    argv += ["-n", workers] if workers else []
    print("+ " + shlex.join(argv), flush=True)
    return subprocess.run(argv, env=dict(env), check=False).returncode


def _comment(env: Mapping[str, str], number: int, markdown: str) -> None:
    """Create the pull request's gate comment, or edit the one an earlier run posted."""
    body = f"{MARKER}\n{markdown}"
    if len(body) > LIMIT:
        body = body[:LIMIT] + "\n\n(cut: the full report is the run's job summary and artifact)"
    repo = env.get("GITHUB_REPOSITORY", "")
    api = env.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
    try:
        found = _ours(env, f"{api}/repos/{repo}/issues/{number}/comments")
        if found is None:
            _call(env, "POST", f"{api}/repos/{repo}/issues/{number}/comments", {"body": body})
        else:
            _call(env, "PATCH", f"{api}/repos/{repo}/issues/comments/{found}", {"body": body})
    except (urllib.error.URLError, OSError, ValueError) as err:
        # a fork's read-only token cannot comment: the summary and the exit code still stand
        print(f"::warning::corpus gate: could not post the pull-request comment ({err})")


def _ours(env: Mapping[str, str], url: str) -> int | None:
    """The id of the comment this action posted before, reading every page."""
    page = 1
    while True:
        comments = _call(env, "GET", f"{url}?per_page=100&page={page}")
        if not isinstance(comments, list):
            return None
        for comment in comments:
            if str(comment.get("body") or "").startswith(MARKER):
                return int(comment["id"])
        if len(comments) < 100:
            return None
        page += 1


def _call(env: Mapping[str, str], method: str, url: str, data: Any = None) -> Any:
    payload = json.dumps(data).encode("utf-8") if data is not None else None
    request = urllib.request.Request(url, data=payload, method=method)
    request.add_header("Accept", "application/vnd.github+json")
    request.add_header("Authorization", f"Bearer {env.get('GITHUB_TOKEN', '')}")
    request.add_header("X-GitHub-Api-Version", "2022-11-28")
    if payload is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"null")


def _output(env: Mapping[str, str], name: str, value: str) -> None:
    path = env.get("GITHUB_OUTPUT")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"{name}={value}\n")


def _true(text: str) -> bool:
    return text.strip().lower() in ("true", "1", "yes")


if __name__ == "__main__":
    sys.exit(main(os.environ))
