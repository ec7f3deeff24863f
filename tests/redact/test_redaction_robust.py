"""Values the scanner used to miss, and `keygen --output` judged by the output's repository.

A token in the query of a relative URL inside an error message, a secret under a numbered key
name, a phone number written as an unquoted integer mapping key: `add` redacts each, and
`validate` reports each when a hand edit puts one back.
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, Cli, git

NAMES = ("access_token", "token", "api_key", "client_secret", "refresh_token", "id_token")


def _token(rng: random.Random) -> str:
    return "ya29." + "".join(rng.choices(string.ascii_letters + string.digits + "-_", k=40))


def _incident(tmp_path: Path, mutate: object) -> Path:
    data = json.loads((EXAMPLES / "incidents" / "refund-success.json").read_text("utf-8"))
    assert callable(mutate)
    mutate(data)
    path = tmp_path / "incident.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_add_redacts_query_secrets_of_relative_urls_in_free_text(
    corpus_dir: Path, tmp_path: Path, cli: Cli
) -> None:
    rng = random.Random(24)
    planted = [_token(rng) for _ in range(24)]
    lines = [
        f"POST /hooks/{n}?{NAMES[n % len(NAMES)]}={value}&retry=1 failed: 401"
        for n, value in enumerate(planted)
    ]

    def plant(data: dict[str, object]) -> None:
        events = data["events"]
        assert isinstance(events, list)
        events[-1]["output"] = "\n".join(lines)

    result = cli("-C", corpus_dir, "add", _incident(tmp_path, plant), "--id", "hooks")
    assert result.code == 0, result.err
    trace = (corpus_dir / "cases/hooks/trace.yaml").read_text(encoding="utf-8")
    assert [value for value in planted if value in trace] == []
    assert "POST /hooks/0?access_token=REDACTED&retry=1 failed: 401" in trace
    assert cli("-C", corpus_dir, "validate").code == 0


def test_add_drops_secrets_under_numbered_key_names(
    corpus_dir: Path, tmp_path: Path, cli: Cli
) -> None:
    def plant(data: dict[str, dict[str, object]]) -> None:
        data["input"]["context"] = {"access_token_2": "s3cr3t-value-one", "password1": "hunter22"}

    result = cli("-C", corpus_dir, "add", _incident(tmp_path, plant), "--id", "numbered")
    assert result.code == 0, result.err
    trace = (corpus_dir / "cases/numbered/trace.yaml").read_text(encoding="utf-8")
    assert "s3cr3t-value-one" not in trace and "hunter22" not in trace
    assert "access_token_2: REDACTED" in trace and "password1: REDACTED" in trace


@pytest.mark.parametrize(
    ("line", "rule"),
    [
        ("    13812345678: vip customer\n", "redaction.cn_mobile"),
        (
            "    callback: /hook?access_token=ya29.a0AfH6SMBxyzABCDEF123456\n",
            "redaction.secret_key",
        ),
        ("    access_token_2: s3cr3t-value-one\n", "redaction.secret_key"),
    ],
)
def test_validate_finds_a_hand_edited_value_the_scanner_used_to_miss(
    line: str, rule: str, corpus_dir: Path, cli: Cli
) -> None:
    assert (
        cli("-C", corpus_dir, "add", EXAMPLES / "incidents/refund-success.json", "--id", "c").code
        == 0
    )
    trace = corpus_dir / "cases/c/trace.yaml"
    text = trace.read_text(encoding="utf-8")
    assert "  context:\n" in text
    trace.write_text(text.replace("  context:\n", "  context:\n" + line, 1), encoding="utf-8")
    result = cli("-C", corpus_dir, "validate", "--format", "json")
    assert result.code == 1
    assert [f["rule"] for f in json.loads(result.out)["findings"]] == [rule]


def test_keygen_output_refuses_a_repository_it_is_not_run_in(
    git_repo: Path, tmp_path: Path, cli: Cli
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = git_repo / "secrets" / "corpus.key"
    result = cli("keygen", "--output", target, cwd=elsewhere)
    assert result.code == 2 and f"inside the repository {git_repo}" in result.err
    assert not target.exists()


def test_keygen_output_from_home_accepts_the_path_it_recommends(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    result = cli("keygen", "--output", "~/.config/corpus-tool/refund.key", cwd=home)
    assert result.code == 0, result.err
    assert (home / ".config/corpus-tool/refund.key").read_text().startswith("crk1_")


def test_keygen_output_from_a_repository_to_outside_it_is_written(
    git_repo: Path, tmp_path: Path, cli: Cli
) -> None:
    git(git_repo, "status")
    target = tmp_path / "keys" / "corpus.key"
    assert cli("keygen", "--output", target, cwd=git_repo).code == 0 and target.is_file()
