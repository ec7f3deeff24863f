"""The docs point at files and sections that exist: every relative link of README.md and
docs/*.md reaches a file of the repository, and its `#anchor` a heading of that file (as GitHub
makes anchors), and every repository path a doc shows in code (`examples/corpus/`) exists."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from tests.conftest import ROOT
from tests.docs.doc_lines import docs

_LINK = re.compile(r"\]\(([^)#\s]*)(?:#([^)\s]+))?\)")
_SHOWN = re.compile(
    r"`((?:docs|schemas|examples|bench|hooks|tests|corpus_tool)/[\w./-]+|[\w-]+\.md)`"
)


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(doc: Path) -> set[str]:
    found, fenced = set(), False
    for line in doc.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            found.add(_anchor(line.lstrip("#")))
    return found


def broken(root: Path) -> list[str]:
    """Every link or shown path of the docs under `root` that leads nowhere."""
    found = []
    for doc in docs(root):
        text = doc.read_text(encoding="utf-8")
        name = doc.relative_to(root).as_posix()
        for target, anchor in _LINK.findall(text):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            path = doc.parent / target if target else doc
            if not path.exists():
                found.append(f"{name}: links to {target}, which does not exist")
            elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
                found.append(f"{name}: links to {target}#{anchor}, a heading {target} lacks")
        found += [
            f"{name}: shows {shown}, which does not exist"
            for shown in _SHOWN.findall(text)
            if not (root / shown).exists() and not (doc.parent / shown).exists()
        ]
    return found


def test_every_link_and_path_of_the_docs_exists() -> None:
    assert not broken(ROOT), "\n".join(broken(ROOT))


def test_a_link_to_a_missing_heading_or_file_fails(tmp_path: Path) -> None:
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    for entry in ROOT.iterdir():  # the rest of the repository, as it is
        if entry.name not in ("README.md", "docs"):
            (tmp_path / entry.name).symlink_to(entry)
    with (tmp_path / "docs/gate.md").open("a", encoding="utf-8") as doc:
        doc.write(
            "\nSee [the contract](DESIGN.md), [replay](replay.md#no-such-part), `docs/x.md`.\n"
        )
    assert broken(tmp_path) == [
        "docs/gate.md: links to DESIGN.md, which does not exist",
        "docs/gate.md: links to replay.md#no-such-part, a heading replay.md lacks",
        "docs/gate.md: shows docs/x.md, which does not exist",
    ]
