"""`corpus init --editor`: the corpus files associated with their schemas for
yaml-language-server, and what an editor then shows (checked against the real server when it
is installed: a typo underlined with validate's advice, a field's description as hover text)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from corpus_tool.io.schema import load_schema
from corpus_tool.model.check_guide import hint
from tests.conftest import EXAMPLES, Cli

SERVER = os.environ.get("CORPUS_TEST_YLS") or shutil.which("yaml-language-server")


def _settings(root: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((root / ".vscode/settings.json").read_text())
    return doc


def test_init_editor_writes_yaml_schemas_pointing_at_the_installed_files(
    git_repo: Path, cli: Cli
) -> None:
    code, out, _ = cli("init", git_repo / "evals", "--editor")
    assert code == 0 and "(yaml.schemas)" in out
    schemas = _settings(git_repo)["yaml.schemas"]
    globs = sorted(g for found in schemas.values() for g in found)
    assert globs == [
        "evals/cases/*/expected.yaml",
        "evals/cases/*/trace.yaml",
        "evals/corpus.yaml",
        "evals/waivers/*.yaml",
    ]
    for path in schemas:  # local files: no network needed
        assert (git_repo / path if path.startswith("./") else Path(path)).is_file()
    code, out, _ = cli("init", git_repo / "evals", "--editor")
    assert "kept" in out and "has the schema associations" in out


def test_init_editor_keeps_a_settings_file_with_comments_and_prints_the_snippet(
    git_repo: Path, cli: Cli
) -> None:
    settings = git_repo / ".vscode/settings.json"
    settings.parent.mkdir()
    settings.write_text('{\n  // mine\n  "editor.tabSize": 2\n}\n')
    code, out, _ = cli("init", git_repo / "evals", "--editor")
    assert code == 0 and "is not plain JSON; add this to it" in out and '"yaml.schemas"' in out
    assert settings.read_text() == '{\n  // mine\n  "editor.tabSize": 2\n}\n'


def test_init_without_editor_says_how_and_writes_no_settings(git_repo: Path, cli: Cli) -> None:
    code, out, _ = cli("init", git_repo / "evals")
    assert code == 0 and "corpus init --editor" in out
    assert not (git_repo / ".vscode").exists()


class Server:
    """yaml-language-server over stdio: requests answered, notifications collected."""

    def __init__(self, argv: list[str], root: Path) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.answers: dict[int, Any] = {}
        self.notes: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 0
        capabilities = {"textDocument": {"hover": {"contentFormat": ["plaintext"]}}}
        self.request("initialize", {"processId": None, "rootUri": root.as_uri(),
                                    "capabilities": capabilities})  # fmt: skip
        self.notify("initialized", {})

    def _send(self, message: dict[str, Any]) -> None:
        data = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.proc.stdin.flush()

    def _read(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        while True:
            length = 0
            while (line := stream.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line:
                return
            message = json.loads(stream.read(length))
            if "method" in message and "id" in message:  # the server asks: configuration...
                result = [self.config] if message["method"] == "workspace/configuration" else None
                self._send({"id": message["id"], "result": result})
            elif "method" in message:
                with self.lock:
                    self.notes.append(message)
            else:
                self.answers[message["id"]] = message.get("result")

    config: Any = None

    def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        self._send({"id": self.next_id, "method": method, "params": params})
        return self.wait(lambda: self.answers.get(self.next_id, ...) is not ..., "answer")

    def notify(self, method: str, params: Any) -> None:
        self._send({"method": method, "params": params})

    def wait(self, ready: Any, what: str) -> Any:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if ready():
                return self.answers.get(self.next_id)
            time.sleep(0.05)
        raise AssertionError(f"yaml-language-server gave no {what} in 30 s")

    def diagnostics(self, uri: str) -> list[dict[str, Any]]:
        def published() -> list[dict[str, Any]]:
            with self.lock:
                found = [n for n in self.notes if n["method"] == "textDocument/publishDiagnostics"
                         and n["params"]["uri"] == uri and n["params"]["diagnostics"]]  # fmt: skip
            return found[-1]["params"]["diagnostics"] if found else []

        self.wait(lambda: bool(published()), "diagnostics")
        return published()


@pytest.mark.skipif(SERVER is None, reason="yaml-language-server is not installed "
                    "(npm install yaml-language-server, or set CORPUS_TEST_YLS)")  # fmt: skip
def test_the_editor_underlines_a_typo_with_validates_advice_and_hovers_descriptions(
    git_repo: Path, cli: Cli
) -> None:
    assert cli("init", git_repo / "evals", "--editor").code == 0
    case = git_repo / "evals/cases/refund-success"
    shutil.copytree(EXAMPLES / "corpus/cases/refund-success", case)
    expected = case / "expected.yaml"
    text = expected.read_text().replace("\n  tools:", "\n  tols:", 1)
    expected.write_text(text)
    _, said, _ = cli("-C", git_repo / "evals", "validate", expected)
    assert hint(()) in said  # what validate advises for the typo

    server = Server([str(SERVER), "--stdio"], git_repo)
    try:
        schemas = {str((git_repo / k).resolve()) if k.startswith("./") else k: v
                   for k, v in _settings(git_repo)["yaml.schemas"].items()}  # fmt: skip
        server.config = {"schemas": schemas, "validate": True, "hover": True}
        server.notify("workspace/didChangeConfiguration", {"settings": {"yaml": server.config}})
        uri = expected.as_uri()
        server.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "yaml", "version": 1, "text": text}})  # fmt: skip
        found = server.diagnostics(uri)
        typo_line = text.splitlines().index("  tols:")
        assert any(d["message"] == hint(()) and d["range"]["start"]["line"] == typo_line
                   for d in found), found  # fmt: skip
        tier_line = next(i for i, line in enumerate(text.splitlines()) if line.startswith("tier:"))
        hover = server.request("textDocument/hover", {"textDocument": {"uri": uri},
                               "position": {"line": tier_line, "character": 1}})  # fmt: skip
        shown = json.dumps(hover)
        description = load_schema("expected")["properties"]["tier"]["description"]
        assert description.split(".")[0] in shown, shown
    finally:
        server.proc.kill()
        server.proc.wait()


def test_the_schema_advice_is_validates_for_expect_and_each_of_its_keys() -> None:
    expect = load_schema("expected")["properties"]["expect"]
    assert expect["errorMessage"] == hint(())
    for key, sub in expect["properties"].items():
        assert sub["errorMessage"] == hint((key,)), key
