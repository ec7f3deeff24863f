"""The GitHub Action's script (ci/gate_action.py) run as the action runs it: on a real git
repository, with a simulated pull_request event, against a local stand-in for the GitHub API
that records every call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from tests.gate.gate_repo import BROKEN_PRICING, ShopRepo, build

SCRIPT = ROOT / "ci" / "gate_action.py"
MARKER = "<!-- corpus-gate-report -->"


class StandIn:
    """The issue-comments API of one repository, in memory; `calls` in order."""

    def __init__(self) -> None:
        self.comments: dict[int, str] = {9: "a reviewer's own comment"}
        self.calls: list[tuple[str, str, str]] = []  # method, path, Authorization header
        self.refuse = False  # True: writes are forbidden (403), as to a fork's token

    def handle(self, method: str, path: str, auth: str, body: Any) -> tuple[int, Any]:
        self.calls.append((method, path.split("?")[0], auth))
        if method == "GET" and path.startswith("/repos/shop/agent/issues/7/comments"):
            page = int(path.rsplit("page=", 1)[1]) if "page=" in path else 1
            listed = [{"id": k, "body": v} for k, v in sorted(self.comments.items())]
            return 200, listed if page == 1 else []
        if method == "POST" and path == "/repos/shop/agent/issues/7/comments" and not self.refuse:
            new = max(self.comments) + 1
            self.comments[new] = body["body"]
            return 201, {"id": new}
        if method == "PATCH" and path.startswith("/repos/shop/agent/issues/comments/"):
            number = int(path.rsplit("/", 1)[1])
            self.comments[number] = body["body"]
            return 200, {"id": number}
        if self.refuse:  # a fork's read-only token
            return 403, {"message": "Resource not accessible by integration"}
        return 404, {"message": "Not Found"}

    def ours(self) -> list[str]:
        return [body for body in self.comments.values() if body.startswith(MARKER)]


@pytest.fixture
def api() -> Iterator[tuple[StandIn, str]]:
    state = StandIn()

    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length)) if length else None
            status, answer = state.handle(
                self.command, self.path, self.headers.get("Authorization", ""), body
            )
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = _serve

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _run(shop: ShopRepo, url: str, base_sha: str, name: str, **inputs: str) -> dict[str, Any]:
    """The action's gate step: its environment as GitHub sets it; what it left behind."""
    runner = shop.scratch / name
    runner.mkdir()
    event = runner / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7, "base": {"sha": base_sha}}}))
    env = {
        **shop.env,
        "PYTHONPATH": str(ROOT),
        "CORPUS": f"{sys.executable} -m corpus_tool",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_API_URL": url,
        "GITHUB_REPOSITORY": "shop/agent",
        "GITHUB_TOKEN": "t0ken",
        "GITHUB_OUTPUT": str(runner / "output"),
        "GITHUB_STEP_SUMMARY": str(runner / "summary.md"),
        "RUNNER_TEMP": str(runner),
        "INPUT_CORPUS": "evals",
        "INPUT_WORKERS": "1",
        **{f"INPUT_{k.upper()}": v for k, v in inputs.items()},
    }
    done = subprocess.run(
        [sys.executable, str(SCRIPT)], cwd=shop.root, env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    outputs = runner / "output"
    lines = outputs.read_text().splitlines() if outputs.exists() else []
    return {
        "code": done.returncode,
        "log": done.stdout + done.stderr,
        "outputs": dict(line.split("=", 1) for line in lines),
        "summary": (runner / "summary.md").read_text() if (runner / "summary.md").exists() else "",
        "html": list(runner.rglob("*.html")),
    }


def _pull_request(tmp_path: Path, pricing: str, message: str) -> tuple[ShopRepo, str]:
    """The shop repository with a branch that rewrites shop/pricing.py; its base commit."""
    shop = build(tmp_path)
    base_sha = shop.git("rev-parse", "HEAD").strip()
    shop.git("checkout", "-q", "-b", "change")
    shop.write("shop/pricing.py", pricing)
    shop.commit(message)
    return shop, base_sha


def test_regression_posts_one_comment_then_edits_it_and_exits_1(
    tmp_path: Path, api: tuple[StandIn, str]
) -> None:
    state, url = api
    shop, base_sha = _pull_request(tmp_path, BROKEN_PRICING, "refunds in display units")

    first = _run(shop, url, base_sha, "run1")
    assert first["code"] == 1, first["log"]
    assert first["outputs"]["exit-code"] == "1"
    assert len(first["html"]) == 1 and first["outputs"]["report"] == str(first["html"][0])
    assert "regression" in first["summary"]  # the job summary holds the Markdown
    (posted,) = state.ours()
    assert ":x:" in posted and "Blocking" in posted and "refund-order" in posted
    assert [c[0] for c in state.calls] == ["GET", "POST"]
    assert all(c[2] == "Bearer t0ken" for c in state.calls)

    state.calls.clear()
    second = _run(shop, url, base_sha, "run2", upload="false")
    assert second["code"] == 1, second["log"]
    assert [c[0] for c in state.calls] == ["GET", "PATCH"]  # the same comment, edited
    assert len(state.ours()) == 1 and len(state.comments) == 2  # the reviewer's kept
    assert "report" not in second["outputs"] and second["html"] == []  # nothing to upload


def test_clean_change_exits_0_and_says_so_in_the_comment(
    tmp_path: Path, api: tuple[StandIn, str]
) -> None:
    state, url = api
    same = "def refund_amount(cents):\n    return int(cents)\n"
    shop, base_sha = _pull_request(tmp_path, same, "same refunds, spelled otherwise")
    ran = _run(shop, url, base_sha, "run1", comment="true")
    assert ran["code"] == 0, ran["log"]
    (posted,) = state.ours()
    assert ":white_check_mark:" in posted and ":x:" not in posted
    assert "Blocking" not in posted


def test_a_refused_comment_is_a_warning_and_the_gate_code_stands(
    tmp_path: Path, api: tuple[StandIn, str]
) -> None:
    state, url = api
    state.refuse = True
    shop, base_sha = _pull_request(tmp_path, BROKEN_PRICING, "refunds in display units")
    ran = _run(shop, url, base_sha, "run1")
    assert ran["code"] == 1 and ran["outputs"]["exit-code"] == "1", ran["log"]
    assert "::warning::corpus gate: could not post the pull-request comment" in ran["log"]
    assert "Traceback" not in ran["log"] and "regression" in ran["summary"]
    assert [c[0] for c in state.calls] == ["GET", "POST"] and state.ours() == []


def test_action_yml_runs_the_script_and_uploads_only_the_report_it_names() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    assert {"corpus", "mode", "model", "repeat", "shard"} <= set(action["inputs"])
    steps = {step.get("name"): step for step in action["runs"]["steps"]}
    assert "ci/gate_action.py" in steps["corpus gate"]["run"]
    upload = steps["Upload the HTML report"]
    assert upload["uses"].startswith("actions/upload-artifact@")
    assert "steps.gate.outputs.report != ''" in upload["if"]
    assert steps["The gate's verdict"]["run"] == 'exit "${CODE:-2}"'
    assert os.access(SCRIPT, os.R_OK)
