"""Redaction through the command line: add, validate, keygen, forget, in real directories."""

from __future__ import annotations

import datetime
import json
import os
import random
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote_plus

import pytest
import yaml

from corpus_tool.redact import RedactionKey, fingerprint, pseudonym
from corpus_tool.testing.planted import (
    GENERATORS,
    decoys,
    native_incident,
    planted_values,
    secret_parts,
)
from tests.conftest import EXAMPLES, GIT_ENV, ROOT, TEST_KEY, Cli, git
from tests.replay.conftest import copy_corpus

BASE = json.loads((EXAMPLES / "incidents" / "refund-wrong-unit.json").read_text())
KEY = RedactionKey(TEST_KEY.encode(), "test")
SOON = (datetime.date.today() + datetime.timedelta(days=30)).isoformat()  # within waivers.max_days


def _corpus_texts(root: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.yaml")))


def _add(cli: Cli, root: Path, tmp_path: Path, doc: dict[str, object], name: str) -> str:
    incident = tmp_path / f"{name}.json"
    incident.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    done = cli("-C", root, "add", incident, "--id", name)
    assert done.code == 0, done.err
    return name


def test_add_without_key_stops_and_says_how_to_make_one(
    cli: Cli, corpus_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CORPUS_REDACTION_KEY")
    done = cli("-C", corpus_dir, "add", EXAMPLES / "incidents" / "refund-success.json")
    assert done.code == 2 and "corpus keygen" in done.err
    assert list((corpus_dir / "cases").iterdir()) == [corpus_dir / "cases" / ".gitkeep"]


def test_add_records_key_id_never_the_key(cli: Cli, corpus_dir: Path, tmp_path: Path) -> None:
    _add(
        cli,
        corpus_dir,
        tmp_path,
        native_incident(BASE, 0, planted_values(random.Random(1)), []),
        "p",
    )
    trace = (corpus_dir / "cases" / "p" / "trace.yaml").read_text()
    assert f"key_id: {KEY.key_id}" in trace and TEST_KEY not in _corpus_texts(corpus_dir)
    assert "replaced: " in trace and "policy: 2" in trace


def test_add_planted_incidents_leave_no_value_and_validate_clean(
    cli: Cli, corpus_dir: Path, tmp_path: Path
) -> None:
    rng = random.Random(11)
    shared = planted_values(rng)
    planted, kept_all = [], []
    for i in range(4):
        values = shared if i % 2 == 0 else planted_values(rng)
        kept = decoys(rng)
        _add(cli, corpus_dir, tmp_path, native_incident(BASE, i, values, kept), f"case-{i}")
        planted.append(values)
        kept_all.extend(kept)
    text = _corpus_texts(corpus_dir)
    leaks = [
        (kind, part)
        for values in planted
        for kind, value in values.items()
        for part in secret_parts(kind, value)
        if part in text or quote_plus(part) in text or json.dumps(part)[1:-1] in text
    ]
    assert leaks == []
    assert [d for d in kept_all if d not in text] == []
    for kind in ("email", "iban", "us_ssn", "github_token"):
        mark = pseudonym(shared[kind], kind, KEY)
        holding = [i for i in range(4) if mark in _corpus_texts(corpus_dir / "cases" / f"case-{i}")]
        assert holding == [0, 2], kind
    done = cli("-C", corpus_dir, "validate")
    assert done.code == 0, done.out


@pytest.fixture
def committed(cli: Cli, git_repo: Path, tmp_path: Path) -> Path:
    """A corpus in a git repository with one clean committed case `c`."""
    root = git_repo / "evals"
    assert cli("init", root).code == 0
    _add(cli, root, tmp_path, BASE, "c")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "case c")
    return root


@pytest.mark.parametrize("kind", sorted(GENERATORS))
def test_validate_flags_raw_value_injected_into_committed_trace(
    kind: str, cli: Cli, committed: Path
) -> None:
    value = GENERATORS[kind](random.Random(kind))
    trace = committed / "cases" / "c" / "trace.yaml"
    lines = trace.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  user_message:"))
    lines[at] = f"  user_message: {json.dumps('see ' + value)}"
    trace.write_text("\n".join(lines) + "\n")
    done = cli("validate", trace, cwd=committed)
    assert done.code == 1
    assert f"cases/c/trace.yaml:{at + 1}: [redaction.{kind}] $.input.user_message" in done.out
    assert all(part not in done.out for part in secret_parts(kind, value))


def test_validate_flags_value_in_a_yaml_comment(cli: Cli, committed: Path) -> None:
    expected = committed / "cases" / "c" / "expected.yaml"
    expected.write_text(expected.read_text() + "# ask zed.q@mail-9.cn\n")
    done = cli("validate", cwd=committed)
    assert done.code == 1 and "[redaction.email] $ (comment)" in done.out


def _allow(root: Path, value: str, detector: str, wid: str = "W-allow") -> Path:
    path = root / "waivers" / f"{wid}.yaml"
    path.write_text(
        f"schema_version: 1\nid: {wid}\nkind: redaction\n"
        f"fingerprint: {fingerprint(value, KEY, detector)}\ndetector: {detector}\n"
        f"reason: the shop's public support address\nowner: support\nexpires: '{SOON}'\n"
    )
    return path


def _inject(root: Path, text: str) -> None:
    trace = root / "cases" / "c" / "trace.yaml"
    trace.write_text(trace.read_text().replace("  user_message: ", f"  user_message: {text} ", 1))


def test_validate_allow_list_by_fingerprint_and_stale_entries(
    cli: Cli, committed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _inject(committed, "help@shop-support.cn")
    _allow(committed, "help@shop-support.cn", "email")
    assert cli("validate", cwd=committed).code == 0
    monkeypatch.delenv("CORPUS_REDACTION_KEY")
    keyless = cli("validate", cwd=committed)
    assert keyless.code == 1 and "set CORPUS_REDACTION_KEY" in keyless.out
    monkeypatch.setenv("CORPUS_REDACTION_KEY", TEST_KEY)
    _allow(committed, "gone@shop-support.cn", "email", "W-stale")
    done = cli("validate", cwd=committed)
    assert done.code == 1 and "waivers/W-stale.yaml:4: [redaction.allow_unused]" in done.out
    trace_only = cli("validate", "cases/c/trace.yaml", cwd=committed)
    assert trace_only.code == 0, trace_only.out


def _set_key_file(config: Path, key_file: str, **more: str) -> None:
    """Point corpus.yaml's own redaction block at a key file (a second block is a duplicate key)."""
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    data["redaction"] = {"key_file": key_file, **more}
    config.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def test_key_file_inside_repository_is_refused(cli: Cli, committed: Path) -> None:
    config = committed / "corpus.yaml"
    _set_key_file(config, "../corpus.key")
    (committed.parent / "corpus.key").write_text(TEST_KEY)
    added = cli("-C", committed, "add", EXAMPLES / "incidents" / "refund-success.json")
    assert added.code == 2 and "inside the repository" in added.err
    checked = cli("validate", cwd=committed)
    assert checked.code == 1 and "[redaction.key]" in checked.out


def test_keygen_prints_only_the_key(cli: Cli, committed: Path) -> None:
    done = cli("keygen", cwd=committed)
    assert done.code == 0 and done.out.strip().startswith("crk1_") and len(done.out.split()) == 1
    assert "never in the repository" in done.err


def test_keygen_output_outside_repository_only(
    cli: Cli, committed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inside = cli("keygen", "--output", "my.key", cwd=committed)
    assert inside.code == 2 and not (committed / "my.key").exists()
    target = tmp_path / "secrets" / "corpus.key"
    done = cli("keygen", "--output", target, cwd=committed)
    assert done.code == 0 and stat.S_IMODE(target.stat().st_mode) == 0o600
    config = committed / "corpus.yaml"
    _set_key_file(config, str(target))
    monkeypatch.delenv("CORPUS_REDACTION_KEY")
    incident = EXAMPLES / "incidents" / "refund-success.json"
    new_id = RedactionKey(target.read_text().strip().encode(), "file").key_id
    refused = cli("-C", committed, "add", incident)  # case c carries the test key
    assert refused.code == 2 and KEY.key_id in refused.err and new_id in refused.err
    _set_key_file(config, str(target), key_id=new_id)  # a rotation to the key file's key
    assert cli("-C", committed, "add", incident).code == 0


def test_forget_lists_then_removes_cases_and_their_waivers(
    cli: Cli, corpus_dir: Path, tmp_path: Path
) -> None:
    for name, phone in (("a", "138 1234 5678"), ("b", "+86-139-8765-4321")):
        doc = json.loads(json.dumps(BASE))
        doc["traceId"] = f"t-{name}"
        doc["input"]["userMessage"] += f" call {phone}"
        _add(cli, corpus_dir, tmp_path, doc, name)
    waiver = corpus_dir / "waivers" / "W-a.yaml"
    waiver.write_text(
        "schema_version: 1\nid: W-a\ncase: a\nchecks: [all]\nreason: r\nowner: o\n"
        "expires: '2099-01-01'\n"
    )
    dry = cli("-C", corpus_dir, "forget", "+8613812345678", "--dry-run")
    assert dry.code == 0 and dry.out.splitlines()[:2] == [
        "would remove case a",
        "would remove waiver waivers/W-a.yaml",
    ]
    assert (corpus_dir / "cases" / "a").is_dir()
    done = cli("-C", corpus_dir, "forget", "13812345678", "--format", "json")
    assert json.loads(done.out) == {
        "dry_run": False,
        "cases": ["a"],
        "waivers": ["waivers/W-a.yaml"],
        "other_key": [],
    }
    assert not (corpus_dir / "cases" / "a").exists() and not waiver.exists()
    assert (corpus_dir / "cases" / "b").is_dir()
    assert "13812345678" not in done.out + dry.out


def test_forget_refuses_a_value_no_detector_knows(cli: Cli, corpus_dir: Path) -> None:
    done = cli("-C", corpus_dir, "forget", "Zhang San")
    assert done.code == 2 and "no detector recognises" in done.err


def test_validate_flags_value_under_secret_named_key(cli: Cli, committed: Path) -> None:
    trace = committed / "cases" / "c" / "trace.yaml"
    lines = trace.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  context:"))
    lines.insert(at + 1, "    password: hunter2-not-real")
    trace.write_text("\n".join(lines) + "\n")
    done = cli("validate", cwd=committed)
    assert done.code == 1
    assert (
        f"cases/c/trace.yaml:{at + 2}: [redaction.secret_key] $.input.context.password" in done.out
    )
    assert "hunter2" not in done.out


@pytest.mark.parametrize(
    "value",
    ["{1: hunter2-not-real, b: hunter3-not-real}", "{when: 2024-01-01, pin: hunter2-not-real}"],
    ids=["keys-of-two-types", "a-timestamp"],
)
def test_validate_flags_a_mapping_under_secret_named_key_whatever_it_holds(
    cli: Cli, committed: Path, value: str
) -> None:
    """A secret-named key holding a mapping whose keys are of two types, or a YAML timestamp,
    is a finding like any other (it was an internal error: the value could not be shown)."""
    trace = committed / "cases" / "c" / "trace.yaml"
    lines = trace.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  context:"))
    lines.insert(at + 1, f"    password: {value}")
    trace.write_text("\n".join(lines) + "\n")
    done = cli("validate", cwd=committed)
    assert done.code == 1, done.out + done.err
    assert f"cases/c/trace.yaml:{at + 2}: [redaction.secret_key] $.input.context.password" in (
        done.out
    )
    assert "hunter" not in done.out + done.err


def test_git_hook_blocks_a_commit_that_adds_a_secret(git_repo: Path, committed: Path) -> None:
    shutil.copy(ROOT / "hooks" / "pre-commit", git_repo / ".git" / "hooks" / "pre-commit")
    _inject(committed, "token sk-proj-Ab3dEfGh1jKlMn0pQrStUvWxYz0123456789")
    git(git_repo, "add", "-A")
    env = {**os.environ, **GIT_ENV, "CORPUS": f"{sys.executable} -m corpus_tool",
           "PYTHONPATH": str(ROOT)}  # fmt: skip
    blocked = subprocess.run(
        ["git", "commit", "-q", "-m", "leak"], cwd=git_repo, env=env, capture_output=True, text=True
    )
    assert blocked.returncode != 0
    assert "[redaction.openai_key]" in blocked.stdout + blocked.stderr
    assert git(git_repo, "log", "--format=%s", "-1").strip() == "case c"


def test_forget_names_cases_redacted_under_another_key(
    cli: Cli, corpus_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _add(cli, corpus_dir, tmp_path, BASE, "old")
    monkeypatch.setenv("CORPUS_REDACTION_KEY", "crk1_" + "another-key-" * 4)
    done = cli("-C", corpus_dir, "forget", "13812345678", "--dry-run")
    assert done.code == 1  # nothing could be checked
    assert done.out.splitlines() == [
        "cannot search case old: redacted under another key; re-add it",
        "no case searched holds a pseudonym of it, but 1 case could not be searched (redacted "
        "under another key) and may still hold the value; rerun `corpus forget` under the key "
        "they were redacted with, or remove them",
    ]


SUPPORT = "help@shop-support.cn"
SUPPORT_AGENT = f'''"""The example agent with a public support address in its own system prompt."""
from examples.refund_agent import agent, prompts

_load = prompts.load
prompts.load = lambda version: _load(version) + " Questions: {SUPPORT}"
run = agent.run
'''


def test_add_keeps_an_allow_listed_value_so_the_agents_own_prompt_replays(
    cli: Cli, tmp_path: Path
) -> None:
    root = copy_corpus(tmp_path, "support_agent:run")
    for old in [*(root / "cases").iterdir(), *(root / "waivers").iterdir()]:
        shutil.rmtree(old) if old.is_dir() else old.unlink()  # cases under the examples' key
    (root / "support_agent.py").write_text(SUPPORT_AGENT, encoding="utf-8")
    incident = json.loads((EXAMPLES / "incidents" / "refund-success.json").read_text("utf-8"))
    for event in incident["events"]:  # the recorder logged the prompt the agent sent
        for message in event.get("messages", []):
            if message["role"] == "system":
                message["content"] += f" Questions: {SUPPORT}"
    path = tmp_path / "incident.json"
    path.write_text(json.dumps(incident), encoding="utf-8")
    trace = root / "cases" / "support" / "trace.yaml"

    assert cli("-C", root, "add", path, "--id", "support").code == 0
    assert SUPPORT not in trace.read_text("utf-8")  # no waiver: pseudonymised like any address
    diverged = cli("-C", root, "replay", "support")
    assert diverged.code == 1 and "ModelRequest" in diverged.out

    _allow(root, SUPPORT, "email")  # reviewed: the shop's public address, not personal data
    assert cli("-C", root, "add", path, "--id", "support", "--force").code == 0
    text = trace.read_text("utf-8")
    assert text.count(SUPPORT) == text.count("Questions:") > 0  # kept wherever it stands
    assert cli("-C", root, "validate").code == 0
    replayed = cli("-C", root, "replay", "support", "--mode", "strict")
    assert replayed.code == 0, replayed.out
