"""`corpus affected` checks the HEAD corpus.yaml against its schema: a bad one names its place."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Cli, git


def test_affected_refuses_a_head_corpus_yaml_the_schema_refuses(
    cli: Cli, committed_examples: Path
) -> None:
    """The compiled check only ever says "valid": a bad entrypoint still names its place."""
    config = committed_examples / "evals/corpus.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("examples.refund_agent.agent:run", "not an entrypoint"))
    git(committed_examples, "commit", "-q", "-am", "break the entrypoint")
    code, out, err = cli("-C", committed_examples / "evals", "affected", "--base", "HEAD~1")
    assert (code, out) == (2, "")
    assert "corpus.yaml" in err and "$.agent.entrypoint: 'not an entrypoint' does not match" in err
