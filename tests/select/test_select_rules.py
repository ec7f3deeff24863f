"""Path globs of impact rules, and where a corpus file sits in its repository."""

from __future__ import annotations

import pytest

from corpus_tool.model.config import Config
from corpus_tool.select.git import parse_raw
from corpus_tool.select.layout import Layout
from corpus_tool.select.rules import Impact, glob_regex, path_matches


@pytest.mark.parametrize(
    ("pattern", "path", "hit"),
    [
        ("src/tools/refund.py", "src/tools/refund.py", True),
        ("src/tools/*.py", "src/tools/refund.py", True),
        ("src/tools/*.py", "src/tools/sub/refund.py", False),
        ("src/**", "src/tools/sub/refund.py", True),
        ("src/**/refund.py", "src/refund.py", True),
        ("src/**/refund.py", "src/a/b/refund.py", True),
        ("**/prompts/*.txt", "agent/prompts/system.txt", True),
        ("src/tools", "src/tools/refund.py", True),  # a directory names what is under it
        ("src/tools/", "src/tools/refund.py", True),
        ("src/tool", "src/tools/refund.py", False),
        ("src/tools/refund?.py", "src/tools/refund2.py", True),
        ("src/[ab].py", "src/b.py", True),
        ("src/[!ab].py", "src/b.py", False),
        ("./src/app.py", "src/app.py", True),
    ],
)
def test_glob_matches_like_git_users_expect(pattern: str, path: str, hit: bool) -> None:
    assert path_matches(glob_regex(pattern), path) is hit


def test_impact_applies_every_matching_rule() -> None:
    impact = Impact.from_config(
        Config.from_document(
            {"impact": {"rules": [{"paths": ["src/**"], "all": True}, {"paths": ["src/a.py"]}]}}
        ).impact
    )
    assert [rule.index for rule in impact.matching("src/a.py")] == [0, 1]
    assert impact.unmapped == "all"


@pytest.mark.parametrize("where", ["evals", "evals/", ".", ""])
def test_layout_classifies_corpus_files(where: str) -> None:
    layout = Layout.at(where)
    prefix = layout.prefix
    assert layout.case_of(f"{prefix}cases/a-1/trace.yaml") == "a-1"
    assert layout.case_of(f"{prefix}cases/README.md") is None
    assert layout.is_waiver(f"{prefix}waivers/W-1.yaml")
    assert not layout.is_waiver(f"{prefix}waivers/old/W-1.yaml")
    assert layout.is_global(f"{prefix}corpus.yaml")
    assert layout.is_global("schemas/trace.schema.json")


def test_raw_diff_parsing_keeps_odd_paths_and_marks_submodules() -> None:
    blob, zero = "1" * 40, "0" * 40
    raw = (
        f":100644 100644 {blob} {blob} M\0a b.py\0"
        f":100644 100644 {blob} {blob} R087\0old/ü.py\0new/ü.py\0"
        f":100644 000000 {blob} {zero} D\0gone\0"
        f":120000 100644 {blob} {blob} T\0link\0"
        f":160000 160000 {blob} {blob} M\0vendor/lib\0"
    )
    changes = parse_raw(raw)
    assert [(c.status, c.path, c.old_path, c.link) for c in changes] == [
        ("modified", "a b.py", None, False),
        ("renamed", "new/ü.py", "old/ü.py", False),
        ("deleted", "gone", None, False),
        ("modified", "link", None, False),
        ("modified", "vendor/lib", None, True),
    ]
